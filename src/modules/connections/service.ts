// Connection rules (SPEC "States and transitions", DESIGN section 7): requests,
// accept/reject by the receiver, two_way (two rows) and one_way (one row: the
// requester follows the target), auto-accept, and the connection feed kept in step.
import { sql, transaction } from '../../lib/db'
import { AppError, badRequest, conflict, forbidden, Messages, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { feedManager } from '../../timelines'
import { isCm, type Session } from '../auth/session'
import { onConnectionChanged } from '../notifications/service'
import { isConnectionEnabled } from '../settings/service'
import { usersMap } from '../users/present'
import { findUserByUuid, findUsersByIds, type UserRow } from '../users/repo'
import type { ConnectionType } from './model'
import {
	deleteConnectionsBetween,
	deleteRequest,
	deleteRequestsBetween,
	findRequest,
	insertConnections,
	insertRequest,
	isBlockedBetween,
	isConnected,
	listAccepted,
	listPending,
	lockPair,
} from './repo'

export async function assertConnectionsEnabled(communityId: number): Promise<void> {
	if (!(await isConnectionEnabled(communityId))) throw badRequest(Messages.connectionDisabled)
}

async function findMember(session: Session, memberUuid: string): Promise<UserRow> {
	const member = isUuid(memberUuid)
		? await findUserByUuid(sql, session.communityId, memberUuid)
		: null
	if (!member || member.is_deleted) throw notFound('Member')
	return member
}

/** The follower → followed rows a connection of this type creates. */
const pairsFor = (type: ConnectionType, requester: number, target: number): [number, number][] =>
	type === 'two_way'
		? [
				[requester, target],
				[target, requester],
			]
		: [[requester, target]]

export async function requestConnection(
	session: Session,
	memberUuid: string,
	type: ConnectionType,
	autoAccept: boolean,
) {
	await assertConnectionsEnabled(session.communityId)
	const target = await findMember(session, memberUuid)
	if (target.id === session.userId) throw badRequest('You cannot connect with yourself')
	const now = Date.now()
	const pairs = pairsFor(type, session.userId, target.id)
	const status = await transaction(async (tx) => {
		await lockPair(tx, session.userId, target.id)
		if (await isBlockedBetween(tx, session.communityId, session.userId, target.id))
			throw forbidden('You cannot connect with this member')
		if (await isConnected(tx, session.communityId, session.userId, target.id))
			throw conflict('You are already connected with this member')
		if (await findRequest(tx, session.communityId, target.id, session.userId)) {
			throw conflict('This member has already sent you a connection request; accept it instead')
		}
		if (autoAccept) {
			await insertConnections(tx, session.communityId, pairs, type, now)
			// The target accepted in advance: the requester is told as after a manual
			// accept (101, the target as actor), or an auto-accepted connection goes unseen.
			await onConnectionChanged(tx, {
				communityId: session.communityId,
				actorId: target.id,
				actorUuid: target.uuid,
				recipientId: session.userId,
				accepted: true,
			})
			return 'accepted' as const
		}
		if (!(await insertRequest(tx, session.communityId, session.userId, target.id, type, now))) {
			throw conflict('Connection request already sent')
		}
		await onConnectionChanged(tx, {
			communityId: session.communityId,
			actorId: session.userId,
			actorUuid: session.uuid,
			recipientId: target.id,
			accepted: false,
		})
		return 'pending' as const
	})
	if (status === 'accepted')
		await Promise.all(
			pairs.map(([follower, author]) =>
				feedManager.onFollow(session.communityId, follower, author),
			),
		)
	return { status, connection_type: type }
}

export async function answerConnection(
	session: Session,
	memberUuid: string,
	action: 'accept' | 'reject',
) {
	await assertConnectionsEnabled(session.communityId)
	const member = await findMember(session, memberUuid)
	if (member.id === session.userId) throw badRequest('You cannot connect with yourself')
	return action === 'accept' ? accept(session, member) : reject(session, member)
}

async function accept(session: Session, requester: UserRow) {
	const now = Date.now()
	const type = await transaction(async (tx) => {
		const request = await findRequest(tx, session.communityId, requester.id, session.userId)
		if (!request) {
			if (await findRequest(tx, session.communityId, session.userId, requester.id)) {
				throw forbidden('Only the member who received the request can accept it')
			}
			throw notFound('Connection request')
		}
		// The delete is the claim: of two concurrent accepts only one removes the row.
		if (!(await deleteRequest(tx, session.communityId, requester.id, session.userId)))
			throw notFound('Connection request')
		await insertConnections(
			tx,
			session.communityId,
			pairsFor(request.connection_type, requester.id, session.userId),
			request.connection_type,
			now,
		)
		await onConnectionChanged(tx, {
			communityId: session.communityId,
			actorId: session.userId,
			actorUuid: session.uuid,
			recipientId: requester.id,
			accepted: true,
		})
		return request.connection_type
	})
	await Promise.all(
		pairsFor(type, requester.id, session.userId).map(([follower, author]) =>
			feedManager.onFollow(session.communityId, follower, author),
		),
	)
	return { status: 'accepted' as const, connection_type: type }
}

async function reject(session: Session, member: UserRow) {
	const removed = await sql.begin(async (tx) => {
		const requests = await deleteRequestsBetween(tx, session.communityId, session.userId, member.id)
		const connections = await deleteConnectionsBetween(
			tx,
			session.communityId,
			session.userId,
			member.id,
		)
		return requests + connections
	})
	if (removed === 0) throw new AppError(404, 'No connection or connection request with this member')
	await feedManager.onDisconnect(session.communityId, session.userId, member.id)
	return { status: 'removed' as const }
}

export async function listConnections(
	session: Session,
	memberUuid: string,
	status: 'accepted' | 'pending',
	page: number,
	pageSize: number,
) {
	await assertConnectionsEnabled(session.communityId)
	const member = await findMember(session, memberUuid)
	const offset = (page - 1) * pageSize
	if (status === 'pending') {
		const isSelf = member.id === session.userId
		if (!isSelf && !isCm(session))
			throw forbidden('Only the member or a CM can see pending requests')
		const { rows, total } = await listPending(sql, session.communityId, member.id, pageSize, offset)
		const users = await findUsersByIds(sql, session.communityId, [
			...new Set(rows.flatMap((r) => [r.request_by, r.request_to])),
		])
		const uuidOf = new Map(users.map((u) => [u.id, u.uuid]))
		const connections = rows.map((r) => ({
			user1_uuid: uuidOf.get(r.request_by),
			user2_uuid: uuidOf.get(r.request_to),
			request_by: uuidOf.get(r.request_by),
			request_to: uuidOf.get(r.request_to),
			connection_type: r.connection_type,
			status: 'pending' as const,
			created_at: r.created_at,
			updated_at: r.updated_at,
		}))
		return { connections, users: usersMap(users), total_count: total, page, page_size: pageSize }
	}
	const { rows, total } = await listAccepted(sql, session.communityId, member.id, pageSize, offset)
	const users = await findUsersByIds(sql, session.communityId, [
		...new Set(rows.flatMap((r) => [r.user_id, r.connection_id])),
	])
	const uuidOf = new Map(users.map((u) => [u.id, u.uuid]))
	const connections = rows.map((r) => ({
		user1_uuid: uuidOf.get(r.user_id),
		user2_uuid: uuidOf.get(r.connection_id),
		connection_type: r.connection_type,
		status: 'accepted' as const,
		created_at: r.created_at,
	}))
	return { connections, users: usersMap(users), total_count: total, page, page_size: pageSize }
}
