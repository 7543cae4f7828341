// Attachments of a conversation arrive in the spec's creation form ({attachment_type,
// attachment_meta}) and are stored and answered in its response form — `file_type`
// integer, `file_url`, `file_format`, `file_size` strings — with the creation fields
// kept beside it: the stored form posts use (posts/attachments.ts), so clients read an
// attachment alike wherever it appears. Type 5 is a company widget: resolved (or
// created) by the widgets service in the conversation's transaction, and its
// `attachment_meta.entity_id` is the widget's id (a string, as clients parse it).
import type { Db } from '../../lib/db'
import {
	COMPANY_WIDGET,
	checkedMeta,
	normalizedAttachment,
	type StoredAttachment,
} from '../posts/attachments'
import type { AttachmentInput } from '../posts/model'
import { resolveCompanyWidget } from '../widgets/service'

/** The request's attachments in the stored form; widgets resolved in `tx` (400/404 as the widgets service says). */
export async function resolveAttachments(
	tx: Db,
	communityId: number,
	userId: number,
	inputs: AttachmentInput[],
): Promise<StoredAttachment[]> {
	const stored: StoredAttachment[] = []
	for (const [index, input] of inputs.entries()) {
		const meta = checkedMeta(input.attachment_meta, index)
		if (input.attachment_type !== COMPANY_WIDGET) {
			stored.push(normalizedAttachment(input.attachment_type, meta))
			continue
		}
		const widget = await resolveCompanyWidget(tx, communityId, meta, undefined, userId)
		stored.push(normalizedAttachment(COMPANY_WIDGET, { entity_id: widget.id, ...widget.metadata }))
	}
	return stored
}

/**
 * The answer form of a stored attachment. Rows written before attachments were
 * normalised hold the creation form only; they are answered in the same form as new ones.
 */
export function presentAttachment(stored: unknown): StoredAttachment {
	const row = (stored ?? {}) as Partial<StoredAttachment>
	if (typeof row.file_type === 'number') return row as StoredAttachment
	const type = Number(row.attachment_type)
	const meta =
		row.attachment_meta && typeof row.attachment_meta === 'object' ? row.attachment_meta : {}
	return normalizedAttachment(Number.isInteger(type) ? type : 0, meta)
}
