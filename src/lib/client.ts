// Client headers, parsed once per request. Clients older than MIN_VERSION_CODES for
// their platform are answered 426 before any handler runs.
import { config } from '../config'
import { AppError } from './errors'

export interface ClientInfo {
	platformCode: string | null
	versionCode: number | null
	sdkSource: 'chat' | 'feed' | null
	platformType: string | null
}

export function readClientInfo(headers: Headers): ClientInfo {
	const version = headers.get('x-version-code')
	const source = headers.get('x-sdk-source')
	return {
		platformCode: headers.get('x-platform-code')?.toLowerCase() ?? null,
		versionCode: version !== null && /^\d+$/.test(version.trim()) ? Number(version) : null,
		sdkSource: source === 'chat' || source === 'feed' ? source : null,
		platformType: headers.get('x-platform-type'),
	}
}

export function assertSupportedVersion(client: ClientInfo): void {
	if (!client.platformCode || client.versionCode === null) return
	const minimum = config.minVersionCodes.get(client.platformCode)
	if (minimum !== undefined && client.versionCode < minimum) {
		throw new AppError(426, 'Please update the app')
	}
}

type RequestIpServer = { requestIP(request: Request): { address: string } | null } | null

/**
 * The caller's address for per-IP limits. Behind TRUST_PROXY_HOPS proxies it is the
 * x-forwarded-for entry the outermost trusted proxy appended (counted from the right:
 * entries further left are whatever the client sent); otherwise the socket address.
 */
export function clientIp(request: Request, server: RequestIpServer): string {
	const hops = config.TRUST_PROXY_HOPS
	const forwarded = hops > 0 ? request.headers.get('x-forwarded-for') : null
	if (forwarded) {
		const entries = forwarded
			.split(',')
			.map((entry) => entry.trim())
			.filter(Boolean)
		const ip = entries[Math.max(0, entries.length - hops)]
		if (ip) return ip
	}
	return server?.requestIP(request)?.address || 'local'
}
