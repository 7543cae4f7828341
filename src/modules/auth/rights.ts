// Member rights: what a CM may take from a member (DESIGN section 17). The one home of
// the catalogue and of the check the writing services call. A member holds every right
// a CM has not removed (member_right_denials); CMs and the owner hold them all. The
// session carries the removed ones, read with the role from the user's auth copy
// (roles.ts), so a check costs no query.
import { forbidden } from '../../lib/errors'
import { isCm, type Session } from './session'

export interface RightDefinition {
	/** The right's id and `state` in the SDKs' MemberRight shape (one number for both). */
	state: number
	title: string
	sub_title: string
	/** Why a member without the right is refused (403). */
	refusal: string
}

/** The rights plaza enforces, in the order the SDKs list them. */
export const Rights = {
	respondInChatrooms: {
		state: 3,
		title: 'Can respond in chatrooms',
		sub_title: 'Send messages in the chatrooms they have joined',
		refusal: 'A community manager removed your right to respond in chatrooms',
	},
	createPolls: {
		state: 4,
		title: 'Can create polls',
		sub_title: 'Create polls in chatrooms and poll posts in the feed',
		refusal: 'A community manager removed your right to create polls',
	},
	createPosts: {
		state: 9,
		title: 'Can create posts',
		sub_title: 'Write posts in the feed',
		refusal: 'A community manager removed your right to create posts',
	},
	comment: {
		state: 10,
		title: 'Can comment on posts',
		sub_title: 'Comment on posts and reply to comments',
		refusal: 'A community manager removed your right to comment on posts',
	},
} as const satisfies Record<string, RightDefinition>

export const rightList: readonly RightDefinition[] = Object.values(Rights)

export const isKnownRight = (state: number) => rightList.some((right) => right.state === state)

/** Whether the caller holds the right (CMs and the owner hold every right). */
export const holdsRight = (
	session: Pick<Session, 'role' | 'deniedRights'>,
	right: RightDefinition,
): boolean => isCm(session) || !session.deniedRights?.includes(right.state)

/** 403 with the right's own message unless the caller holds it. */
export function requireRight(session: Session, right: RightDefinition): void {
	if (!holdsRight(session, right)) throw forbidden(right.refusal)
}

/**
 * The SDKs' MemberRight list for a member with `denied` removed: `is_locked` for a CM
 * or the owner, whose rights cannot be taken.
 */
export function presentRights(role: Session['role'], denied: readonly number[]) {
	const cm = role !== 'member'
	return rightList.map((right) => ({
		id: right.state,
		state: right.state,
		title: right.title,
		sub_title: right.sub_title,
		is_selected: cm || !denied.includes(right.state),
		is_locked: cm,
	}))
}
