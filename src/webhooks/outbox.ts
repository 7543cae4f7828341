// The outbox: an event is a row written in the same transaction as the change that
// caused it, together with one delivery row per active webhook of its type, so no
// event is lost to a crash between the change and its delivery.
//
// Scheduling after commit needs nothing from callers: the same statement calls
// pg_notify, which Postgres delivers only when (and if) the transaction commits. The
// worker's relay (lib/outbox/relay.ts) listens, moves the fresh rows into the Redis
// schedule, and also sweeps for rows whose notification it missed.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../lib/db'
import { newId } from '../lib/ids'
import { type FeedNotification, recordFeedNotificationWith } from './notifications'
import {
	eventsFromCtes,
	eventsWithDeliveriesCtes,
	insertEventsWithDeliveries,
	webhookTypesOf,
} from './repo'

export type EventSource = 'feed' | 'chat'

export interface NewEvent {
	communityId: number
	event: string
	source?: EventSource
	data: unknown
}

export const deliveriesChannel = 'webhook_deliveries'

/**
 * The event types somebody listens for in a community: a webhook of that type is
 * registered (inactive ones count: they may replay what they missed). Writers whose
 * events are costly (a room's participants in every chat event) record only these.
 */
export const listenedEvents = async (db: Db, communityId: number): Promise<Set<string>> =>
	new Set(await webhookTypesOf(db, communityId))

/** Writes the event and its deliveries inside `tx`; returns the event id. */
export const recordEvent = (tx: Db, input: NewEvent): Promise<string> => insertEvent(tx, input)

/** `notifications.feed` for the given recipients, 1,000 customer ids per page (one event each). */
export const recordFeedNotification = (tx: Db, input: FeedNotification) =>
	recordFeedNotificationWith(insertEvent, tx, input)

/** Writes many events and their deliveries inside `tx` in one statement (a batch of likes). */
export function recordEvents(tx: Db, inputs: NewEvent[]): Promise<void> {
	return insertEventsWithDeliveries(tx, rowsOf(inputs), Date.now(), deliveriesChannel)
}

/**
 * recordEvents as CTEs of a caller's ONE statement, which then needs no transaction: the
 * events commit with the change they record or not at all (webhooks/repo.ts
 * eventsWithDeliveriesCtes: the statement must read `deliveries_notified`).
 */
export function recordEventsCtes(db: Db, communityId: number, inputs: NewEvent[]) {
	return eventsWithDeliveriesCtes(db, communityId, rowsOf(inputs), Date.now(), deliveriesChannel)
}

/**
 * recordEventsCtes for the events a caller's statement selects itself: `rows` yields
 * (id: newEventId(), c: community, e: event, s: 'feed' or 'chat', d: data) and may read
 * the statement's other CTEs, so the statement decides which of them are written.
 * `communityId`: every row's (webhooks/repo.ts eventsFromCtes).
 */
export function recordEventsFromCtes(db: Db, communityId: number, rows: PendingQuery<Row[]>) {
	return eventsFromCtes(db, communityId, rows, Date.now(), deliveriesChannel)
}

/** The id of an event written by recordEventsFromCtes. */
export const newEventId = newId

const rowsOf = (inputs: NewEvent[]) =>
	inputs.map((e) => ({ ...e, id: newId(), source: e.source ?? 'feed' }))

async function insertEvent(tx: Db, input: NewEvent): Promise<string> {
	const id = newId()
	const row = { ...input, id, source: input.source ?? 'feed' }
	await insertEventsWithDeliveries(tx, [row], Date.now(), deliveriesChannel)
	return id
}
