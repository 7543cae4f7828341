// Attachments arrive in the creation form ({attachment_type, attachment_meta}) or in
// feed-js's ({type: "image"|…|"poll", meta_data}: DESIGN §16) and are stored in the
// response form (file_type, file_url, file_format, file_size) with both creation forms
// kept beside it, so SPEC clients and the SDK parse the same answer. Type 5 is a company
// widget: resolved or created by the widgets service inside the post's transaction;
// type 6 a feed poll: created by the poll engine (modules/polls) in that transaction.
import type { Db } from '../../lib/db'
import { AppError, badRequest } from '../../lib/errors'
import { createFeedPoll } from '../polls/feed-poll'
import type { WidgetRow } from '../widgets/repo'
import { resolveCompanyWidget } from '../widgets/service'
import { type AttachmentInput, MAX_ATTACHMENT_META_BYTES, type PostAttachmentInput } from './model'

export const COMPANY_WIDGET = 5
export const POLL = 6

/** feed-js's attachment type names and the numbers stored for them. */
const typeCodes: Record<string, number> = {
	image: 1,
	video: 2,
	document: 3,
	doc: 3,
	link: 4,
	custom: COMPANY_WIDGET,
	poll: POLL,
	article: 7,
	post: 8,
	repost: 8,
	gif: 9,
	reel: 10,
}
const typeNames = new Map<number, string>(
	Object.entries(typeCodes)
		.filter(([name]) => name !== 'doc' && name !== 'post')
		.map(([name, code]) => [code, name]),
)

/** Attachments that write rows of their own (a widget, a poll): never a plain post. */
export const writesRows = (type: number) => type === COMPANY_WIDGET || type === POLL

/** Both request forms as the spec's; 400 naming the attachment that has neither type. */
export function attachmentInputs(inputs: PostAttachmentInput[]): AttachmentInput[] {
	return inputs.map((input, index) => {
		const meta = input.attachment_meta ?? input.meta_data
		if (input.attachment_type !== undefined)
			return { attachment_type: input.attachment_type, attachment_meta: meta }
		if (input.type === undefined)
			throw badRequest(`Invalid body: attachments.${index}.attachment_type is missing`)
		const code = typeCodes[input.type.trim().toLowerCase()]
		if (code === undefined)
			throw badRequest(
				`Invalid body: attachments.${index}.type must be one of ${Object.keys(typeCodes).join(', ')}`,
			)
		return { attachment_type: code, attachment_meta: meta }
	})
}

export interface StoredAttachment {
	attachment_type: number
	attachment_meta: Record<string, unknown>
	file_type: number
	file_url: string
	file_format: string
	file_size: string
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value))

/** A post's stored attachment: the spec's forms and feed-js's `{type, meta_data}`. */
export interface PostAttachment extends StoredAttachment {
	type: string
	meta_data: Record<string, unknown>
}

function postAttachment(type: number, meta: Record<string, unknown>): PostAttachment {
	return {
		...normalizedAttachment(type, meta),
		type: typeNames.get(type) ?? 'custom',
		meta_data: meta,
	}
}

export interface ResolvedAttachments {
	attachments: PostAttachment[]
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
	const attachments: PostAttachment[] = []
	const widgets = new Map<string, WidgetRow>()
	for (const [index, input] of inputs.entries()) {
		const meta = checkedMeta(input.attachment_meta, index)
		if (input.attachment_type === POLL) {
			const poll = await createFeedPoll(tx, { communityId, postId, creatorId: userId }, meta, index)
			widgets.set(poll.widget.id, poll.widget)
			attachments.push(postAttachment(POLL, poll.meta))
			continue
		}
		if (input.attachment_type !== COMPANY_WIDGET) {
			attachments.push(postAttachment(input.attachment_type, meta))
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
		attachments.push(postAttachment(COMPANY_WIDGET, { entity_id: widget.id, ...widget.metadata }))
	}
	return { attachments, widgets: [...widgets.values()] }
}
