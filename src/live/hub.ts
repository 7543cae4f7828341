// This process's side of live delivery: ONE subscriber connection to Redis (on a cluster,
// ioredis' sharded subscribers: one per master, whatever the number of scopes), each
// channel subscribed while at least one local connection wants it, and the local
// fan-out. Two ways out:
// - Bun's pub/sub topics (`server.publish`): a WebSocket caught up on a plain scope
//   joins the topic named by the scope's key, and an event is framed once and written
//   to every such socket by Bun;
// - listeners: a connection still resuming (it buffers until its backlog is sent), an
//   SSE stream, and scopes whose frame differs per viewer (feed: blocks applied).
// A channel message is `<stream id>\n<event JSON>`, or `!<signal>` (publish.ts).
import type { Server } from 'bun'
import type Redis from 'ioredis'
import { Cluster } from 'ioredis'
import { log } from '../lib/log'
import { redis } from '../lib/redis'
import { channelOf, keyOf } from './channel'
import { liveDeliveries, liveLag } from './metrics'
import { RESET_EVENT } from './publish'

export interface Delivery {
	id: string
	/** The event JSON as published (`{type, at, data}`). */
	json: string
}

export type Listener = (delivery: Delivery | { signal: string }) => void

interface Channel {
	name: string
	listeners: Set<Listener>
	/** WebSockets in the Bun topic of this channel. */
	topicMembers: number
	subscribed: Promise<void>
}

const channels = new Map<string, Channel>()
let subscriber: Redis | Cluster | undefined
/** Resolves at the subscriber's first `ready`: a SUBSCRIBE queued before it could be lost. */
let subscriberReady: Promise<void> = Promise.resolve()
let server: Server<unknown> | undefined
const lostHandlers: (() => void)[] = []

const sharded = redis instanceof Cluster

/** The Bun server whose topics carry WebSocket fan-out (set by the first upgrade). */
export function useServer(s: Server<unknown>): void {
	server = s
}

/** Called when the subscriber reconnected: messages of the gap are lost, connections must resume. */
export function onSubscriberLost(handler: () => void): void {
	lostHandlers.push(handler)
}

/** The client name of this process's subscriber connections. */
export const subscriberName = (): string => `plaza-live-${process.pid}`

function connect(): Redis | Cluster {
	if (subscriber) return subscriber
	// Named, so an operator (and a test) can count them in CLIENT LIST.
	const connectionName = subscriberName()
	const s = sharded
		? (redis as Cluster).duplicate(undefined, {
				shardedSubscribers: true,
				redisOptions: { connectionName },
			})
		: (redis as Redis).duplicate({ enableAutoPipelining: false, connectionName })
	let readyOnce = false
	subscriberReady = new Promise((resolve) =>
		s.on('ready', () => {
			if (readyOnce) for (const handler of lostHandlers) handler()
			readyOnce = true
			resolve()
		}),
	)
	s.on('error', (error: Error) => log.warn({ err: error.message }, 'live subscriber error'))
	s.on(sharded ? 'smessage' : 'message', (channel: string, message: string) =>
		dispatch(keyOf(channel), message),
	)
	subscriber = s
	return s
}

function dispatch(key: string, message: string): void {
	const channel = channels.get(key)
	if (!channel) return
	if (message.startsWith('!probe:')) {
		probes.get(message)?.()
		return
	}
	if (message.startsWith('!')) {
		for (const listener of channel.listeners) listener({ signal: message.slice(1) })
		return
	}
	const cut = message.indexOf('\n')
	const delivery = { id: message.slice(0, cut), json: message.slice(cut + 1) }
	let sent = 0
	if (channel.topicMembers > 0 && server) {
		server.publish(key, frameOf(channel.name, delivery))
		sent += channel.topicMembers
	}
	for (const listener of channel.listeners) listener(delivery)
	sent += channel.listeners.size
	liveDeliveries.inc(sent)
	const at = Number(/"at":(\d+)/.exec(delivery.json)?.[1])
	if (at) liveLag.observe(Math.max(0, Date.now() - at) / 1000)
}

/**
 * The frame of one event of a scope, built by concatenation: the event JSON is sent as
 * published. The marker of a lost event (publish.ts) is a `reset` frame instead.
 */
export const frameOf = (name: string, d: Delivery): string =>
	isReset(d)
		? `{"type":"reset","scope":${JSON.stringify(name)},"cursor":"${d.id}"}`
		: `{"type":"event","scope":${JSON.stringify(name)},"id":"${d.id}","event":${d.json}}`

export const isReset = (d: Delivery): boolean => d.json.startsWith(`{"type":"${RESET_EVENT}"`)

function channelFor(key: string, name: string): Channel {
	let channel = channels.get(key)
	if (!channel) {
		const s = connect()
		channel = {
			name,
			listeners: new Set(),
			topicMembers: 0,
			subscribed: subscriberReady.then(() => subscribeHeard(s, key)),
		}
		channels.set(key, channel)
	}
	return channel
}

const probes = new Map<string, () => void>()
let probeCount = 0
const PROBE_WAIT_MS = 500

const subscribe = (s: Redis | Cluster, key: string) =>
	sharded ? (s as Cluster).ssubscribe(channelOf(key)) : s.subscribe(channelOf(key))

/**
 * Subscribes, then proves it: a probe published on the channel must come back through
 * this subscriber before the channel counts as subscribed (else SUBSCRIBE again, three
 * times). A subscription confirmed by Redis that delivers nothing was once seen under
 * load; a client must never be told `subscribed` over a silent channel.
 */
async function subscribeHeard(s: Redis | Cluster, key: string): Promise<void> {
	for (let attempt = 1; attempt <= 3; attempt++) {
		await subscribe(s, key)
		const probe = `!probe:${process.pid}-${++probeCount}`
		const heard = new Promise<boolean>((resolve) => {
			const timer = setTimeout(() => resolve(false), PROBE_WAIT_MS)
			probes.set(probe, () => {
				clearTimeout(timer)
				resolve(true)
			})
		})
		const channel = channelOf(key)
		await (sharded ? (redis as Cluster).spublish(channel, probe) : redis.publish(channel, probe))
		const ok = await heard
		probes.delete(probe)
		if (ok) return
		log.warn({ key, attempt }, 'live subscription did not hear its probe; subscribing again')
	}
	log.error({ key }, 'live subscription unproven after three tries')
}

function release(key: string, channel: Channel): void {
	if (channel.listeners.size > 0 || channel.topicMembers > 0) return
	channels.delete(key)
	const s = subscriber
	if (!s) return
	const name = channelOf(key)
	const done = sharded ? (s as Cluster).sunsubscribe(name) : s.unsubscribe(name)
	done.catch((error: Error) => log.warn({ err: error.message, key }, 'live unsubscribe failed'))
}

/** Listens on a channel; resolves once Redis confirmed the subscription (nothing published after is missed). */
export function attach(key: string, name: string, listener: Listener): Promise<void> {
	const channel = channelFor(key, name)
	channel.listeners.add(listener)
	return channel.subscribed
}

export function detach(key: string, listener: Listener): void {
	const channel = channels.get(key)
	if (!channel) return
	channel.listeners.delete(listener)
	release(key, channel)
}

/** Counts a WebSocket that subscribed to the Bun topic `key` (the caller calls ws.subscribe). */
export function joinTopic(key: string, name: string): void {
	channelFor(key, name).topicMembers++
}

export function leaveTopic(key: string): void {
	const channel = channels.get(key)
	if (!channel) return
	channel.topicMembers--
	release(key, channel)
}
