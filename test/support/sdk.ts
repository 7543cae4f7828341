// The vendor's SDKs (@likeminds.community/feed-js and chat-js, pinned devDependencies)
// driven unchanged against a real listening plaza. Two things a browser would give them
// are given here: their base URL (a constant inside each SDK) is redirected to the
// local server by a request interceptor on the axios they import, and Web Storage.
import chatJs from '@likeminds.community/chat-js'
import { InitiateUserRequest, LMFeedClient } from '@likeminds.community/feed-js'
import axios from 'axios'
import 'fake-indexeddb/auto'
import { app } from '../../src/app'

// chat-js is CommonJS with `exports.default = LMChatClient`; Bun hands its whole exports
// object over as the default import.
const LMChatClient = (chatJs as unknown as { default: typeof chatJs }).default
type LMChatClient = InstanceType<typeof chatJs>

const SDK_BASE = 'https://auth.likeminds.community'

let server: ReturnType<typeof Bun.serve> | undefined

/** Starts (once per test file) a real HTTP server for the app and points the SDKs at it. */
export function sdkServer(): string {
	if (!server) {
		server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => app.handle(request) })
		const local = `http://127.0.0.1:${server.port}`
		axios.interceptors.request.use((config) => {
			if (config.url?.startsWith(SDK_BASE)) config.url = local + config.url.slice(SDK_BASE.length)
			// chat-js's leaveCommunity asks for a path alone, which a browser resolves against
			// the page's origin: here the page is taken to be served beside plaza.
			else if (config.url?.startsWith('/')) config.url = local + config.url
			return config
		})
		installWebStorage()
	}
	return `http://127.0.0.1:${server.port}`
}

/** A browser's Web Storage (chat-js keeps tokens in localStorage, state in sessionStorage). */
class MemoryStorage {
	private items = new Map<string, string>()
	getItem = (key: string) => this.items.get(key) ?? null
	setItem = (key: string, value: string) => void this.items.set(key, String(value))
	removeItem = (key: string) => void this.items.delete(key)
	clear = () => this.items.clear()
}

function installWebStorage(): void {
	for (const name of ['localStorage', 'sessionStorage'])
		if (!(name in globalThis)) Object.assign(globalThis, { [name]: new MemoryStorage() })
}

/** A feed-js client for an API key, its tokens set after `initiateUser` as an app would. */
export function feedClient(apiKey: string): LMFeedClient {
	sdkServer()
	return LMFeedClient.Builder().setApiKey(apiKey).setPlatformCode('rt').setVersionCode(1).build()
}

/** A chat-js client (it takes the API key with `initiateUser`). */
export function chatClient(): LMChatClient {
	sdkServer()
	return LMChatClient.setPlatformCode('rt').setVersionCode(1).build()
}

/**
 * A feed-js client signed in as the member `uniqueId` through `initiateUser` (both SDKs
 * keep tokens in one process-wide storage: the newest sign-in is who acts next).
 */
export async function feedSignedIn(apiKey: string, uniqueId: string, name = uniqueId) {
	const client = feedClient(apiKey)
	const session = await client.initiateUser(
		InitiateUserRequest.builder()
			.setUUID(uniqueId)
			.setUserName(name)
			.setIsGuest(false)
			.setApiKey(apiKey)
			.build(),
	)
	if (!session.success || !session.data)
		throw new Error(`initiateUser failed: ${session.errorMessage}`)
	return { client, session: session.data }
}
