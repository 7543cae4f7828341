// How a post is stored in the post cache (post-cache.ts). A cached post is two lines: a
// small header (what feed filters need and what the feed form leaves out) and the
// viewer-independent part of its feed form, already serialized. The hot feed path
// splices that string instead of parsing and re-serializing every post; the object form
// is rebuilt from both lines.
//
// The seen counters are the value's fixed TAIL (seenTail), written here whatever the
// order of the other fields, so post-cache.ts's postSetSeen script only ever rewrites
// that tail — whatever look-alike keys attachments hold (their quotes are escaped).
import { postFromShared, presentStablePost } from './present'
import type { CachedPost } from './repo'

export const IMPRESSIONS = ',"impressions_count":'
export const REACH = ',"reach_count":'
const seenTail = (impressions: number, reach: number) =>
	`${IMPRESSIONS}${impressions}${REACH}${reach}`

export type PostHeader = Pick<
	CachedPost,
	| 'user_id'
	| 'author_uuid'
	| 'community_id'
	| 'visibility'
	| 'is_deleted'
	| 'hidden'
	| 'held'
	| 'is_pinned'
	| 'tagged_user_ids'
>

export interface PostView {
	header: PostHeader
	/** `"_id":...,"updated_at":...` — the shared feed fields without braces, as UTF-8. */
	fragment: Buffer
}

export function encodePost(post: CachedPost): string {
	const {
		user_id,
		author_uuid,
		community_id,
		visibility,
		is_deleted,
		hidden,
		held,
		is_pinned,
		tagged_user_ids,
	} = post
	const header: PostHeader = {
		user_id,
		author_uuid,
		community_id,
		visibility,
		is_deleted,
		hidden,
		held,
		is_pinned,
		tagged_user_ids,
	}
	const stable = JSON.stringify(presentStablePost(post)).slice(1, -1)
	return `${JSON.stringify(header)}\n${stable}${seenTail(post.impressions_count, post.reach_count)}`
}

const NEWLINE = 10

export function decodeView(raw: Buffer): PostView {
	const newline = raw.indexOf(NEWLINE)
	return {
		header: JSON.parse(raw.toString('utf8', 0, newline)),
		fragment: raw.subarray(newline + 1),
	}
}

export function decodeFull(raw: Buffer): CachedPost {
	const { header, fragment } = decodeView(raw)
	return postFromShared(header, JSON.parse(`{${fragment.toString()}}`))
}
