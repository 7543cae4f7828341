// Attachments arrive in the creation form ({attachment_type, attachment_meta}) and are
// stored in the response form (file_type, file_url, file_format, file_size) with the
// creation fields kept beside it. Type 5 is a company widget: resolved or created by
// the widgets service inside the post's transaction.
import type { Db } from '../../lib/db'
import type { WidgetRow } from '../widgets/repo'
import { resolveCompanyWidget } from '../widgets/service'
import type { AttachmentInput } from './model'

export const COMPANY_WIDGET = 5

export interface StoredAttachment {
	attachment_type: number
	attachment_meta: Record<string, unknown>
	file_type: number
	file_url: string
	file_format: string
	file_size: string
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value))

export interface ResolvedAttachments {
	attachments: StoredAttachment[]
	widgets: WidgetRow[]
}

export async function resolveAttachments(
	tx: Db,
	communityId: number,
	postId: string,
	userId: number,
	inputs: AttachmentInput[],
): Promise<ResolvedAttachments> {
	const attachments: StoredAttachment[] = []
	const widgets = new Map<string, WidgetRow>()
	for (const input of inputs) {
		const meta = (input.attachment_meta ?? {}) as Record<string, unknown>
		if (input.attachment_type === COMPANY_WIDGET) {
			const widget = await resolveCompanyWidget(
				tx,
				communityId,
				meta,
				{ id: postId, type: 'post' },
				userId,
			)
			widgets.set(widget.id, widget)
			attachments.push({
				attachment_type: COMPANY_WIDGET,
				attachment_meta: { entity_id: widget.id, ...widget.metadata },
				file_type: COMPANY_WIDGET,
				file_url: text(widget.metadata.company_image_url),
				file_format: 'widget',
				file_size: '',
			})
			continue
		}
		attachments.push({
			attachment_type: input.attachment_type,
			attachment_meta: meta,
			file_type: input.attachment_type,
			file_url: text(meta.url),
			file_format: text(meta.format),
			file_size: text(meta.size),
		})
	}
	return { attachments, widgets: [...widgets.values()] }
}
