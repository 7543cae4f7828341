// One client's live connection, WebSocket or SSE alike (the transport is a Sink): the
// scopes it follows, resuming each from the client's cursor, and its end — at the
// token's expiry, on the token's revocation, or when the client stops reading (a full
// send buffer closes with a resumable code). Subscribing follows the rule that loses
// nothing: listen on the channel first (Redis confirmed), then read the stream after the
// cursor, send it, then what arrived meanwhile with a newer id only; a WebSocket then
// moves to the Bun topic in the same tick, so no event falls between the two.

import { compareIds, newestId, readAfter } from './history'
import {
	attach,
	type Delivery,
	detach,
	frameOf,
	isReset,
	joinTopic,
	type Listener,
	leaveTopic,
} from './hub'
import type { LiveScope } from './scopes'

export const LIVE_LIMITS = {
	scopesPerConnection: 20,
	sendBufferBytes: 1 << 20,
	wsPingMs: 30_000,
	ssePingMs: 15_000,
	/** A safety net under the revocation signal: every connection's token re-checked. */
	recheckMs: 30_000,
}

/** Close codes: the client reconnects (with its cursors) after 4008 and 4009; after 4001 it needs a fresh token. */
export const CloseCode = { unauthorized: 4001, slowConsumer: 4008, resume: 4009 } as const

export interface Sink {
	transport: 'ws' | 'sse'
	/** `scope` and `id` are given for events (SSE writes its `id:` line from them). */
	send(frame: string, scope?: string, id?: string): void
	buffered(): number
	ping(): void
	close(code: number, reason: string): void
	/** WebSocket only: Bun's topic fan-out. */
	joinTopic?(key: string): void
	leaveTopic?(key: string): void
}

/**
 * A feed scope's frame is per viewer: authors in a block with the viewer are left out,
 * and when `authors` is given only theirs count (the connection feed: whom the viewer follows).
 */
export interface Subscription {
	scope: LiveScope
	hiddenAuthors?: Set<number>
	authors?: Set<number>
}

export interface Holder {
	userId: number
	/** The control channel: `revoked` signals arrive there (the user's `me` scope). */
	controlKey: string
	expiresAt: number
	stillValid: () => Promise<boolean>
}

interface Followed {
	sub: Subscription
	listener?: Listener
	topic: boolean
	/** Newest id sent (de-duplication while resuming, the feed's count). */
	last: string
	count: number
}

export class LiveConnection {
	private followed = new Map<string, Followed>()
	private closed = false
	private lastPing = Date.now()
	private lastCheck = Date.now()
	private control: Listener

	constructor(
		readonly sink: Sink,
		readonly holder: Holder,
	) {
		this.control = (d) => {
			if ('signal' in d && d.signal === 'revoked') void this.recheck()
		}
	}

	/** Starts listening for the holder's revocation. */
	open(): Promise<void> {
		return attach(this.holder.controlKey, 'control', this.control)
	}

	get scopeCount(): number {
		return this.followed.size
	}

	follows(name: string): boolean {
		return this.followed.has(name)
	}

	/** Follows a scope, from `cursor` when given (resume), else from now; answers `subscribed` with the cursor. */
	async subscribe(sub: Subscription, cursor?: string): Promise<void> {
		const { scope } = sub
		const state: Followed = { sub, topic: false, last: '0-0', count: 0 }
		const pending: Delivery[] = []
		let catching = true
		state.listener = (d) => {
			if (!('id' in d) || this.closed) return
			if (catching) pending.push(d)
			else this.deliver(state, d)
		}
		this.followed.set(scope.name, state)
		await attach(scope.key, scope.name, state.listener)
		if (cursor === undefined) {
			state.last = await newestId(scope.key)
		} else {
			const history = await readAfter(scope.key, cursor)
			state.last = cursor
			if (history.reset) {
				state.last = history.last
				const reset = { type: 'reset', scope: scope.name, cursor: history.last }
				this.sink.send(JSON.stringify(reset), scope.name, history.last)
			} else for (const d of history.entries) this.deliver(state, d)
		}
		if (this.closed || this.followed.get(scope.name) !== state) return
		const subscribed = { type: 'subscribed', scope: scope.name, cursor: state.last }
		this.sink.send(JSON.stringify(subscribed), scope.name, state.last)
		for (const d of pending) this.deliver(state, d)
		catching = false
		// Plain scopes on a WebSocket: the same frame for everyone, written by Bun's topic.
		if (this.sink.joinTopic && !sub.hiddenAuthors) {
			joinTopic(scope.key, scope.name)
			this.sink.joinTopic(scope.key)
			detach(scope.key, state.listener)
			state.listener = undefined
			state.topic = true
		}
	}

	unsubscribe(name: string): void {
		const state = this.followed.get(name)
		if (!state) return
		this.followed.delete(name)
		this.release(state)
	}

	private release(state: Followed): void {
		const key = state.sub.scope.key
		if (state.topic) {
			this.sink.leaveTopic?.(key)
			leaveTopic(key)
		}
		if (state.listener) detach(key, state.listener)
	}

	private deliver(state: Followed, d: Delivery): void {
		if (compareIds(d.id, state.last) <= 0) return
		state.last = d.id
		const name = state.sub.scope.name
		const hidden = state.sub.hiddenAuthors
		if (!hidden || isReset(d)) {
			this.sink.send(frameOf(name, d), name, d.id)
			return
		}
		const event = JSON.parse(d.json) as { at: number; data: { post_id: string; author_id: number } }
		const author = event.data.author_id
		if (hidden.has(author) || (state.sub.authors && !state.sub.authors.has(author))) return
		state.count++
		const summary = JSON.stringify({
			type: 'posts.new',
			at: event.at,
			data: { count: state.count, newest_id: event.data.post_id },
		})
		this.sink.send(frameOf(name, { id: d.id, json: summary }), name, d.id)
	}

	/** Called every second by the registry: expiry, a client that stopped reading, pings, re-checks. */
	tick(now: number): void {
		if (this.closed) return
		if (now >= this.holder.expiresAt) {
			this.close(CloseCode.unauthorized, 'token expired')
			return
		}
		if (this.sink.buffered() > LIVE_LIMITS.sendBufferBytes) {
			this.close(CloseCode.slowConsumer, 'send buffer full; resume with your cursors')
			return
		}
		const every = this.sink.transport === 'ws' ? LIVE_LIMITS.wsPingMs : LIVE_LIMITS.ssePingMs
		if (now - this.lastPing >= every) {
			this.lastPing = now
			this.sink.ping()
		}
		if (now - this.lastCheck >= LIVE_LIMITS.recheckMs) {
			this.lastCheck = now
			void this.recheck()
		}
	}

	private async recheck(): Promise<void> {
		if (this.closed) return
		if (!(await this.holder.stillValid().catch(() => true)))
			this.close(CloseCode.unauthorized, 'token revoked')
	}

	/** Ends the connection (idempotent); the sink's own close event calls it too. */
	close(code: number, reason: string): void {
		if (this.closed) return
		this.closed = true
		for (const state of this.followed.values()) this.release(state)
		this.followed.clear()
		detach(this.holder.controlKey, this.control)
		this.sink.close(code, reason)
		this.onClosed?.()
	}

	onClosed?: () => void
}
