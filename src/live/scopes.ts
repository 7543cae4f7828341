// The scopes a live event is published to, each a Redis stream and a pub/sub channel of
// the same name (lib/keys.ts liveStream). `name` is what clients say and see; `key` is
// where the scope lives, with the hash tag of its owner. Who may subscribe is decided by
// modules/live (access checks need modules); this file only names things.
import { keys } from '../lib/keys'

export interface LiveScope {
	/** The client's name of the scope: `me`, `chatroom:<id>`, `feed:universal`. */
	name: string
	/** Stream key and channel name. */
	key: string
}

export const liveScopes = {
	/** A user's own scope: badge, new activity, DM requests, each room's chat unread count. */
	me: (userId: number): LiveScope => ({ name: 'me', key: keys.liveStream(`u${userId}`, 'me') }),
	chatroom: (chatroomId: string | number): LiveScope => ({
		name: `chatroom:${chatroomId}`,
		key: keys.liveStream(`r${chatroomId}`, 'chatroom'),
	}),
	universal: (communityId: number): LiveScope => ({
		name: 'feed:universal',
		key: keys.liveStream(`c${communityId}`, 'universal'),
	}),
	/** Posts that reach followers (public and connections ones); each reader keeps its authors. */
	connection: (communityId: number): LiveScope => ({
		name: 'feed:connection',
		key: keys.liveStream(`c${communityId}`, 'connection'),
	}),
	/** CMs only: the review queue's open reports and pending posts, as counts. */
	community: (communityId: number): LiveScope => ({
		name: 'community',
		key: keys.liveStream(`c${communityId}`, 'community'),
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
