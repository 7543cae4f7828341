// The FCM v1 message for one device (DESIGN section 9): `data` values all strings;
// Android (and the cross-platform SDKs) get a data-only message at HIGH priority, iOS
// a visible notification with mutable-content so the app can enrich it. The whole
// message stays within FCM's 4,096-byte payload limit: sub_title, then title, give way.
export const MAX_MESSAGE_BYTES = 4096

export type PushData = Record<string, string>

function build(token: string, platform: string, data: PushData) {
	const message: Record<string, unknown> = { token, data }
	if (platform === 'ios') {
		message.notification = { title: data.title, body: data.sub_title }
		message.apns = { payload: { aps: { 'mutable-content': 1 } } }
	} else {
		message.android = { priority: 'HIGH' }
	}
	return { message }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/** Cuts `text` so that the message shrinks by at least `excess` bytes. */
function shorten(text: string, excess: number): string {
	let cut = text
	while (cut.length > 0 && Buffer.byteLength(text) - Buffer.byteLength(cut) < excess) {
		cut = cut.slice(0, Math.max(0, cut.length - Math.max(1, excess >> 2)))
	}
	return cut
}

export function fcmMessage(token: string, platform: string, payload: PushData) {
	const data: PushData = {}
	for (const [key, value] of Object.entries(payload)) data[key] = String(value ?? '')
	let body = build(token, platform, data)
	for (const field of ['sub_title', 'title'] as const) {
		const excess = bytes(body) - MAX_MESSAGE_BYTES
		if (excess <= 0) break
		// JSON escaping can make a character cost more than its UTF-8 bytes; cut generously.
		data[field] = shorten(data[field] ?? '', excess * 2)
		body = build(token, platform, data)
	}
	return body
}
