// Link previews (GET /helper/url): the Open Graph tags of a page, fetched by the server
// through the SSRF guard (fetch-page.ts) and kept in Redis for a day per community and
// URL, so a preview shown in many feeds is fetched once. A URL the guard refuses is
// 400 (the guard's reason); a page that cannot be previewed (timeout, not HTML, an HTTP
// error, unreachable) is 422. Uncached fetches are limited per member.
import { createHash } from 'node:crypto'
import { AppError, badRequest } from '../../lib/errors'
import { keys } from '../../lib/keys'
import { limit } from '../../lib/rate-limit'
import { redis } from '../../lib/redis'
import { RefusedUrlError } from '../../webhooks/ssrf'
import type { Session } from '../auth/plugin'
import { fetchPage, PageError } from './fetch-page'
import { type OgTags, ogTagsOf } from './og-tags'

export const PREVIEW_TTL_SECONDS = 24 * 60 * 60
/** Pages a member may have fetched (cache misses) per minute. */
export const FETCHES_PER_MINUTE = 60

const cacheKey = (communityId: number, url: string) =>
	keys.linkPreview(communityId, createHash('sha256').update(url).digest('hex'))

export async function previewUrl(session: Session, raw: string | undefined) {
	const url = raw?.trim()
	if (!url) throw badRequest('url is missing')
	if (url.length > 2_000) throw badRequest('url is longer than 2000 characters')
	const key = cacheKey(session.communityId, url)
	const cached = await redis.get(key)
	if (cached) return { og_tags: JSON.parse(cached) as OgTags }
	await limit('preview', String(session.userId), FETCHES_PER_MINUTE)
	const og_tags = await fetchOgTags(url)
	await redis.set(key, JSON.stringify(og_tags), 'EX', PREVIEW_TTL_SECONDS)
	return { og_tags }
}

async function fetchOgTags(url: string): Promise<OgTags> {
	try {
		const page = await fetchPage(url)
		return await ogTagsOf(page.html, page.url)
	} catch (error) {
		if (error instanceof RefusedUrlError) throw badRequest(error.message)
		if (error instanceof PageError)
			throw new AppError(422, `url cannot be previewed: ${error.message}`)
		const message = (error as Error)?.message ?? String(error)
		throw new AppError(422, `url cannot be previewed: ${message}`.slice(0, 300))
	}
}

/**
 * The url parameter as sent. feed-js and chat-js append the URL unencoded
 * (`?url=https://x/a?b=1&c=2`), so the parameter parser would cut it at its first `&`:
 * an unencoded `url` is the whole rest of the query.
 */
export function urlParameter(requestUrl: string, parsed: string | undefined): string | undefined {
	const search = requestUrl.slice(requestUrl.indexOf('?') + 1)
	if (!requestUrl.includes('?') || !search.startsWith('url=')) return parsed
	const rest = search.slice(4)
	return /^https?:\/\//i.test(rest) ? rest : parsed
}
