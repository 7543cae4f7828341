// SSRF guard for webhook URLs: a receiver may only be a public unicast address,
// unless WEBHOOK_ALLOWED_CIDRS lets a private range through. Checked when a webhook
// is registered and again before every connection (DNS can change in between); the
// delivery then connects to the very address that was checked.
import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

type Address = ipaddr.IPv4 | ipaddr.IPv6
export type AllowList = [Address, number][]

export class RefusedUrlError extends Error {}

export function parseAllowList(cidrs: string[]): AllowList {
	return cidrs.map((cidr) => ipaddr.parseCIDR(cidr))
}

/** An IPv4-compatible IPv6 address (::/96 but not :: or ::1, deprecated): ::a00:5 is 10.0.0.5. */
function isIPv4Compatible(address: ipaddr.IPv6): boolean {
	const [a, b, c, d, e, f, g, h] = address.parts
	return a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && (g !== 0 || (h ?? 0) > 1)
}

function normalise(address: string): Address {
	const parsed = ipaddr.parse(address)
	if (parsed.kind() !== 'ipv6') return parsed
	const v6 = parsed as ipaddr.IPv6
	// ::ffff:10.0.0.5 and ::a00:5 must be judged as the IPv4 address they carry (the
	// second was taken for public unicast).
	if (v6.isIPv4MappedAddress() || isIPv4Compatible(v6)) {
		const [, , , , , , high = 0, low = 0] = v6.parts
		return ipaddr.fromByteArray([high >> 8, high & 255, low >> 8, low & 255]) as ipaddr.IPv4
	}
	return parsed
}

/** True when the address is public unicast or inside one of the allowed ranges. */
export function isAllowedAddress(address: string, allow: AllowList): boolean {
	const parsed = normalise(address)
	for (const [range, bits] of allow) {
		if (parsed.kind() === range.kind() && parsed.match(range, bits)) return true
	}
	return parsed.range() === 'unicast'
}

/** Parses and checks the shape of a webhook URL; throws RefusedUrlError with a reason. */
export function parseWebhookUrl(raw: string): URL {
	let url: URL
	try {
		url = new URL(raw)
	} catch {
		throw new RefusedUrlError('url is not a valid URL')
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		throw new RefusedUrlError('url must be http or https')
	if (url.username || url.password) throw new RefusedUrlError('url must not contain credentials')
	return url
}

export interface Target {
	url: URL
	address: string
	family: 4 | 6
}

/**
 * Resolves the URL's host and checks every address it resolves to (one bad answer
 * refuses it, so a name cannot mix a public and a private address).
 */
export async function resolveTarget(url: URL, allow: AllowList): Promise<Target> {
	const host = url.hostname.replace(/^\[|\]$/g, '')
	let answers: { address: string; family: number }[]
	if (ipaddr.isValid(host)) {
		answers = [{ address: host, family: host.includes(':') ? 6 : 4 }]
	} else {
		try {
			answers = await lookup(host, { all: true })
		} catch {
			throw new RefusedUrlError(`url host ${host} does not resolve`)
		}
	}
	if (answers.length === 0) throw new RefusedUrlError(`url host ${host} does not resolve`)
	for (const answer of answers) {
		if (!isAllowedAddress(answer.address, allow)) {
			throw new RefusedUrlError(
				`url host ${host} resolves to a private or reserved address (${answer.address})`,
			)
		}
	}
	const first = answers[0]
	return { url, address: first.address, family: first.family === 6 ? 6 : 4 }
}

/** The URL to fetch: the checked address in place of the name (Host header keeps the name). */
export function pinnedUrl(target: Target): string {
	const pinned = new URL(target.url.toString())
	pinned.hostname = target.family === 6 ? `[${target.address}]` : target.address
	return pinned.toString()
}
