// The scopes a live event is published to, each a Redis stream and a pub/sub channel of
// the same name (lib/keys.ts liveStream). `name` is what clients say and see; `key` is
// where the scope lives, with the hash tag of its owner; `communityId` is the tenant a
// lost event's durable mark is kept under (owed.ts). Who may subscribe is decided by
// modules/live (access checks need modules); this file only names things.
import { keys } from '../lib/keys'

/** A scope's stream and channel: what a control signal needs. */
export interface LiveChannel {
	/** The client's name of the scope: `me`, `chatroom:<id>`, `feed:universal`. */
	name: string
	/** Stream key and channel name. */
	key: string
}

/** A scope an event is published to: its channel and the community it belongs to. */
export interface LiveScope extends LiveChannel {
	communityId: number
}

/** A user's `me` channel, for signals sent where the community is not at hand (revocation). */
export const userChannel = (userId: number): LiveChannel => ({
	name: 'me',
	key: keys.liveStream(`u${userId}`, 'me'),
})

export const liveScopes = {
	/** A user's own scope: badge, new activity, DM requests, each room's chat unread count. */
	me: (communityId: number, userId: number): LiveScope => ({
		...userChannel(userId),
		communityId,
	}),
	chatroom: (communityId: number, chatroomId: string | number): LiveScope => ({
		name: `chatroom:${chatroomId}`,
		key: keys.liveStream(`r${chatroomId}`, 'chatroom'),
		communityId,
	}),
	universal: (communityId: number): LiveScope => ({
		name: 'feed:universal',
		key: keys.liveStream(`c${communityId}`, 'universal'),
		communityId,
	}),
	/** Posts that reach followers (public and connections ones); each reader keeps its authors. */
	connection: (communityId: number): LiveScope => ({
		name: 'feed:connection',
		key: keys.liveStream(`c${communityId}`, 'connection'),
		communityId,
	}),
	/** CMs only: the review queue's open reports and pending posts, as counts. */
	community: (communityId: number): LiveScope => ({
		name: 'community',
		key: keys.liveStream(`c${communityId}`, 'community'),
		communityId,
	}),
}

/** What a client may ask for, before any access check: `{ kind, id? }`, or null when malformed. */
export type ScopeRequest =
	| { kind: 'me' }
	| { kind: 'chatroom'; id: string }
	| { kind: 'feed:universal' }
	| { kind: 'feed:connection' }
	| { kind: 'community' }

export function parseScope(name: unknown): ScopeRequest | null {
	if (typeof name !== 'string' || name.length > 64) return null
	if (name === 'me') return { kind: 'me' }
	if (name === 'feed:universal') return { kind: 'feed:universal' }
	if (name === 'feed:connection') return { kind: 'feed:connection' }
	if (name === 'community') return { kind: 'community' }
	const room = /^chatroom:([0-9]{1,19})$/.exec(name)
	if (room) return { kind: 'chatroom', id: room[1] as string }
	return null
}
