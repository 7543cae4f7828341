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
 * The attachment's meta: an object (a string, array, number or boolean is a 400: stored,
 * it became a character or index map; none is {}), at most 16 KB serialized (413):
 * feeds and chat pages copy it into every answer that shows it.
 */
export function checkedMeta(meta: unknown, index: number): Record<string, unknown> {
	if (meta === undefined || meta === null) return {}
	if (typeof meta !== 'object' || Array.isArray(meta))
		throw badRequest(`Invalid body: attachments.${index}.attachment_meta must be an object`)
	const bytes = Buffer.byteLength(JSON.stringify(meta))
	if (bytes > MAX_ATTACHMENT_META_BYTES)
		throw new AppError(
			413,
			`attachments.${index}.attachment_meta is ${bytes} bytes; at most ${MAX_ATTACHMENT_META_BYTES}`,
		)
	return meta as Record<string, unknown>
}

/** The stored form of one attachment whose meta is final (a widget's: its id and metadata). */
export function normalizedAttachment(
	type: number,
	meta: Record<string, unknown>,
): StoredAttachment {
	const widget = type === COMPANY_WIDGET
	return {
		attachment_type: type,
		attachment_meta: meta,
		file_type: type,
		file_url: text(widget ? meta.company_image_url : meta.url),
		file_format: widget ? 'widget' : text(meta.format),
		file_size: widget ? '' : text(meta.size),
	}
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
		const meta = checkedMeta(input.attachment_meta, index)
		if (input.attachment_type !== COMPANY_WIDGET) {
			attachments.push(normalizedAttachment(input.attachment_type, meta))
			continue
		}
		const widget = await resolveCompanyWidget(
			tx,
			communityId,
			meta,
			{ id: postId, type: 'post' },
			userId,
		)
		widgets.set(widget.id, widget)
		attachments.push(
			normalizedAttachment(COMPANY_WIDGET, { entity_id: widget.id, ...widget.metadata }),
		)
	}
	return { attachments, widgets: [...widgets.values()] }
}
