// Webhook registrations (CM or owner): create with a fresh whsec_ secret, list, read,
// update (reactivation clears the failure state), delete, the attempt log and replay.
// URLs pass the SSRF check here and again before every delivery (webhooks/deliver.ts).
import { config } from '../../config'
import { encrypt } from '../../lib/crypto'
import { sql } from '../../lib/db'
import { badRequest, conflict, notFound } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { paging } from '../../lib/paging'
import { member, unschedule } from '../../webhooks/queue'
import { discardPending } from '../../webhooks/repo'
import { newWebhookSecret } from '../../webhooks/signing'
import {
	parseAllowList,
	parseWebhookUrl,
	RefusedUrlError,
	resolveTarget,
} from '../../webhooks/ssrf'
import type { Session } from '../auth/plugin'
import type { CreateWebhook, DeliveriesInput, ReplayInput, UpdateWebhook } from './model'
import { presentDelivery, presentWebhook } from './present'
import {
	countEventsInRange,
	deleteWebhook,
	findWebhook,
	insertReplay,
	insertWebhook,
	listDeliveryLog,
	listWebhooks,
	updateWebhook,
	type WebhookChanges,
	type WebhookRow,
} from './repo'

const allowList = parseAllowList(config.webhookAllowedCidrs)
const replayLimit = 10_000

async function checkUrl(raw: string): Promise<string> {
	try {
		const url = parseWebhookUrl(raw.trim())
		await resolveTarget(url, allowList)
		return url.toString()
	} catch (error) {
		if (error instanceof RefusedUrlError) throw badRequest(error.message)
		throw error
	}
}

async function ownWebhook(session: Session, id: string): Promise<WebhookRow> {
	const hook = await findWebhook(sql, session.communityId, id)
	if (!hook) throw notFound('Webhook')
	return hook
}

export async function createWebhook(session: Session, body: CreateWebhook) {
	const url = await checkUrl(body.url)
	const secret = newWebhookSecret()
	const now = Date.now()
	const created = await insertWebhook(sql, {
		id: newId(),
		community_id: session.communityId,
		webhook_type: body.webhook_type,
		url,
		sealed_secret: encrypt(secret),
		is_active: body.is_active ?? true,
		created_at: now,
	})
	if (!created) throw conflict(`A ${body.webhook_type} webhook for this url already exists`)
	return { webhook: { ...presentWebhook(created), secret } }
}

export async function listCommunityWebhooks(session: Session) {
	return { webhooks: (await listWebhooks(sql, session.communityId)).map(presentWebhook) }
}

export async function getWebhook(session: Session, id: string) {
	return { webhook: presentWebhook(await ownWebhook(session, id)) }
}

async function forgetPending(communityId: number, webhookId: string, db = sql) {
	const discarded = await discardPending(db, communityId, webhookId)
	await unschedule(discarded.map((id) => member(webhookId, communityId, id)))
}

export async function editWebhook(session: Session, id: string, body: UpdateWebhook) {
	const hook = await ownWebhook(session, id)
	const changes: WebhookChanges = {}
	if (body.url !== undefined) changes.url = await checkUrl(body.url)
	if (body.webhook_type !== undefined) changes.webhook_type = body.webhook_type
	if (body.is_active === true)
		Object.assign(changes, { is_active: true, deactivated_at: null, deactivation_reason: null })
	if (body.is_active === false && hook.is_active) {
		Object.assign(changes, {
			is_active: false,
			deactivated_at: Date.now(),
			deactivation_reason: `Deactivated by ${session.uuid}`,
		})
	}
	let updated: WebhookRow | null
	try {
		updated =
			Object.keys(changes).length > 0
				? await updateWebhook(sql, session.communityId, id, changes)
				: hook
	} catch (error) {
		if ((error as { code?: string }).code === '23505')
			throw conflict('A webhook of this type for this url already exists')
		throw error
	}
	if (!updated) throw notFound('Webhook')
	// A webhook switched off receives nothing more, as when retries run out.
	if (changes.is_active === false) await forgetPending(session.communityId, id)
	return { webhook: presentWebhook(updated) }
}

export async function removeWebhook(session: Session, id: string) {
	await ownWebhook(session, id)
	await forgetPending(session.communityId, id)
	if (!(await deleteWebhook(sql, session.communityId, id))) throw notFound('Webhook')
	return { webhook_id: id, deleted: true as const }
}

export async function webhookDeliveries(session: Session, id: string, query: DeliveriesInput) {
	await ownWebhook(session, id)
	const p = paging(query.page, query.page_size)
	const { rows, total } = await listDeliveryLog(
		sql,
		session.communityId,
		id,
		query.status,
		p.pageSize,
		p.offset,
	)
	return {
		deliveries: rows.map(presentDelivery),
		total_count: total,
		page: p.page,
		page_size: p.pageSize,
	}
}

function instant(value: number | string, field: string): number {
	const ms =
		typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Date.parse(value)
	if (!Number.isFinite(ms))
		throw badRequest(`${field} must be epoch milliseconds or an ISO 8601 date`)
	return ms
}

export async function replayWebhook(session: Session, id: string, body: ReplayInput) {
	const hook = await ownWebhook(session, id)
	if (!hook.is_active) throw conflict('Webhook is inactive; set is_active to true before replaying')
	const since = instant(body.since, 'since')
	const until = body.until === undefined ? Date.now() : instant(body.until, 'until')
	if (since > until) throw badRequest('since must not be after until')
	const count = await countEventsInRange(sql, hook, since, until)
	if (count > replayLimit)
		throw badRequest(`The range holds ${count} events; replay at most ${replayLimit} at a time`)
	const replayed = count === 0 ? 0 : await insertReplay(sql, hook, since, until)
	return { webhook_id: id, replayed, since, until }
}
