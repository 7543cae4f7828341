// Who may hold a live connection and follow which scope: the token (header, or a
// single-use 30-s ticket for browsers, which cannot set headers on a WebSocket), its
// expiry and revocation, and the access rule of each scope (a secret room the caller
// may not see answers as if it did not exist). No Elysia here.
import { sql } from '../../lib/db'
import { badRequest, forbidden, tooManyRequests, unauthorized } from '../../lib/errors'
import { keys } from '../../lib/keys'
import { redis } from '../../lib/redis'
import { type AccessClaims, tokenFromHeader, verifyAccessToken } from '../../lib/tokens'
import {
	connectionsOf,
	type Holder,
	isStreamId,
	LIVE_LIMITS,
	liveScopes,
	MAX_CONNECTIONS_PER_USER,
	parseScope,
	type Subscription,
	userChannel,
} from '../../live'
import { viewerBlocks } from '../../timelines'
import { tokenState } from '../auth/revocation'
import { isCm, type Session, sessionFromHeader } from '../auth/session'
import { chatViewer, seeRoom } from '../chatrooms/access'
import { followedIds } from './repo'

export const TICKET_SECONDS = 30

/** A caller allowed to connect: the session and the token's claims (expiry, login). */
export interface LiveCaller {
	session: Session
	claims: AccessClaims & { exp: number }
}

/** Issues a single-use ticket standing for the caller's token for 30 s (never the token itself). */
export async function issueTicket(session: Session, header: string | undefined): Promise<string> {
	const caller: LiveCaller = { session, claims: await claimsOf(header) }
	const ticket = crypto.randomUUID().replaceAll('-', '') + crypto.randomUUID().replaceAll('-', '')
	await redis.set(keys.liveTicket(ticket), JSON.stringify(caller), 'EX', TICKET_SECONDS)
	return ticket
}

async function callerFromHeader(header: string | undefined): Promise<LiveCaller> {
	return callerOf(await sessionFromHeader(header), header)
}

/** The claims beside a session the auth macro already checked (a cached verification). */
export async function callerOf(session: Session, header: string | undefined): Promise<LiveCaller> {
	const claims = await claimsOf(header)
	if (connectionsOf(session.userId) >= MAX_CONNECTIONS_PER_USER) throw tooManyRequests(5)
	return { session, claims }
}

/** The token's claims (its expiry, its login), verified again from the cache. */
async function claimsOf(header: string | undefined): Promise<LiveCaller['claims']> {
	const claims = await verifyAccessToken(tokenFromHeader(header) ?? '')
	if (!claims) throw unauthorized('Invalid or expired access token')
	return claims as LiveCaller['claims']
}

/** The caller of an upgrade: the Authorization header, else a ticket (redeemed once); 401 otherwise. */
export async function liveCaller(header: string | undefined, ticket: unknown): Promise<LiveCaller> {
	if (header) return callerFromHeader(header)
	let caller: LiveCaller
	if (typeof ticket === 'string' && /^[0-9a-f]{64}$/.test(ticket)) {
		const stored = await redis.getdel(keys.liveTicket(ticket))
		if (!stored) throw unauthorized('Invalid or expired ticket')
		caller = JSON.parse(stored) as LiveCaller
		if (!(await stillValid(caller.claims))) throw unauthorized('Access token revoked')
	} else throw unauthorized('Missing access token')
	if (connectionsOf(caller.session.userId) >= MAX_CONNECTIONS_PER_USER) throw tooManyRequests(5)
	return caller
}

async function stillValid(claims: AccessClaims): Promise<boolean> {
	const state = await tokenState(claims)
	return !state.revoked && state.role !== null
}

export const holderOf = (caller: LiveCaller): Holder => ({
	userId: caller.session.userId,
	controlKey: userChannel(caller.session.userId).key,
	expiresAt: caller.claims.exp * 1000,
	stillValid: () => stillValid(caller.claims),
})

/** A scope the caller may follow; 400 for a malformed name, 404 for a room it may not see. */
export async function resolveScope(session: Session, name: unknown): Promise<Subscription> {
	const wanted = parseScope(name)
	if (!wanted)
		throw badRequest(
			'scope must be me, chatroom:<id>, feed:universal, feed:connection or community',
		)
	switch (wanted.kind) {
		case 'me':
			return { scope: liveScopes.me(session.communityId, session.userId) }
		case 'chatroom': {
			const room = await seeRoom(sql, chatViewer(session), wanted.id)
			return { scope: liveScopes.chatroom(session.communityId, room.id) }
		}
		case 'feed:universal':
			return {
				scope: liveScopes.universal(session.communityId),
				hiddenAuthors: await viewerBlocks(session),
			}
		case 'feed:connection': {
			const [hiddenAuthors, followed] = await Promise.all([
				viewerBlocks(session),
				followedIds(sql, session.communityId, session.userId),
			])
			return {
				scope: liveScopes.connection(session.communityId),
				hiddenAuthors,
				authors: new Set(followed),
			}
		}
		// Every community has this scope, so a member is told it is not theirs (403), not
		// that it is missing: hiding it would hide nothing.
		case 'community':
			if (!isCm(session)) throw forbidden('community is for community managers')
			return { scope: liveScopes.community(session.communityId) }
	}
}

/** `scope@cursor,scope@cursor` (the SSE id and `cursors` query), each part checked. */
export function parseCursors(value: string | null | undefined): Map<string, string> {
	const cursors = new Map<string, string>()
	if (!value) return cursors
	if (value.length > 2048) throw badRequest('cursors is too long')
	for (const part of value.split(',')) {
		const at = part.lastIndexOf('@')
		const id = part.slice(at + 1)
		if (at <= 0 || !isStreamId(id)) throw badRequest('cursors is malformed')
		cursors.set(part.slice(0, at), id)
	}
	return cursors
}

/** The scopes of an SSE request (`scopes=me,chatroom:1`), bounded. */
export function parseScopeList(value: string | undefined): string[] {
	const names = [...new Set((value ?? '').split(',').filter((s) => s.length > 0))]
	if (names.length === 0) throw badRequest('scopes is required')
	if (names.length > LIVE_LIMITS.scopesPerConnection)
		throw badRequest(`scopes: at most ${LIVE_LIMITS.scopesPerConnection}`)
	return names
}
