// The `auth` macro: `{ auth: 'member' }` needs a valid access token, `{ auth: 'cm' }`
// a community manager or the owner (`'cm-or-owner'`: the same, with the spec's fixed
// message), `{ auth: 'owner' }` the dashboard owner.
// It resolves `session` (session.ts: identity and the role stored now) for the handler.
// `{ auth: { needed, early } }` also starts a route's first read as soon as the token
// is verified, in the same round trip as the token's checks (the feed routes).
import { Elysia } from 'elysia'
import { Messages } from '../../lib/errors'
import { ipLimited } from '../../lib/rate-limit'
import type { Role } from '../../lib/tokens'
import { type Caller, requireRole, type Session, sessionFromHeader } from './session'

export type { Session } from './session'

/**
 * What a route needs: a role, or `cm-or-owner` — a CM with the spec's fixed message
 * ("You are not CM/Owner of this community") for the routes the spec gives it to.
 */
export type Needed = Role | 'cm-or-owner'

/**
 * A read a route starts for a caller whose token verified (its Redis checks not back
 * yet) from the raw query; it keeps what it started by request, and its handler (which
 * runs only once the checks passed) takes it from there.
 */
export type EarlyRead = (
	request: Request,
	caller: Caller,
	rawQuery: Record<string, unknown>,
) => void

function check(session: Session, needed: Needed): Session {
	if (needed === 'cm-or-owner') requireRole(session, 'cm', Messages.notCmOrOwner)
	else requireRole(session, needed)
	return session
}

// A route's token and role are checked before its body is read (app.ts's parser calls
// `authorizeEarly` on every route using this macro) and, for routes without a body, in
// `transform`, which runs before Elysia validates the query: an unauthenticated or
// unauthorised caller never reaches a parser or a schema (issue 15). Once per request.
const authorized = new WeakMap<Request, Promise<Session>>()

function authorize(
	request: Request,
	needed: Needed,
	early?: (caller: Caller) => void,
): Promise<Session> {
	let session = authorized.get(request)
	if (!session) {
		const header = request.headers.get('authorization') ?? undefined
		// The IP limit's command (started on arrival) and the session's share a round trip.
		session = Promise.all([ipLimited(request), sessionFromHeader(header, early)]).then(
			([, found]) => check(found, needed),
		)
		authorized.set(request, session)
	}
	return session
}

const checked = new WeakMap<Request, Session>()
/** The macro's transform hooks and the role each needs: app.ts finds guarded routes by them. */
export const authTransforms = new WeakMap<object, Needed>()

export const authPlugin = new Elysia({ name: 'auth' }).macro({
	auth: (wanted: Needed | { needed: Needed; early: EarlyRead }) => {
		const { needed, early } =
			typeof wanted === 'string' ? { needed: wanted, early: undefined } : wanted
		const transform = async ({
			request,
			query,
		}: {
			request: Request
			query: Record<string, unknown>
		}) => {
			const start = early && ((caller: Caller) => early(request, caller, query))
			checked.set(request, await authorize(request, needed, start))
		}
		authTransforms.set(transform, needed)
		return {
			transform,
			resolve: ({ request }: { request: Request }) => ({
				session: checked.get(request) as Session,
			}),
		}
	},
})

/** For the body parser: refuses a missing or invalid token, or a lesser role, before the body is read. */
export const authorizeEarly = (request: Request, needed: Needed) =>
	authorize(request, needed).then(() => undefined)
