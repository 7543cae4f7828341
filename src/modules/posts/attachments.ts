// Attachments arrive in the creation form ({attachment_type, attachment_meta}) and are
// stored in the response form (file_type, file_url, file_format, file_size) with the
// creation fields kept beside it. Type 5 is a company widget: resolved or created by
// the widgets service inside the post's transaction.
import type { Db } from '../../lib/db'
import { AppError, badRequest } from '../../lib/errors'
import type { WidgetRow } from '../widgets/repo'
import { resolveCompanyWidget } from '../widgets/service'
import { type AttachmentInput, MAX_ATTACHMENT_META_BYTES } from './model'

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

/**
 * An object (a string, array, number or boolean is a 400: stored, it became a character
 * or index map), and at most 16 KB serialized (413): feeds copy it into every page
 * that shows the post.
 */
function assertMeta(meta: unknown, index: number): asserts meta is Record<string, unknown> {
	if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
		throw badRequest(`Invalid body: attachments.${index}.attachment_meta must be an object`)
	const bytes = Buffer.byteLength(JSON.stringify(meta))
	if (bytes > MAX_ATTACHMENT_META_BYTES)
		throw new AppError(
			413,
			`attachments.${index}.attachment_meta is ${bytes} bytes; at most ${MAX_ATTACHMENT_META_BYTES}`,
		)
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
	for (const [index, input] of inputs.entries()) {
		const meta: unknown = input.attachment_meta ?? {}
		assertMeta(meta, index)
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
