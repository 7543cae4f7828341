// The signed-in session, kept in this tab only (sessionStorage): closing the tab
// signs out, and another tab signs in on its own.
export interface Session {
	auth_token: string
	refresh_token: string
	user: { uuid: string; name: string }
	community: { id: number; name: string } | null
}

const KEY = 'plaza.dashboard.session'
const listeners = new Set<(session: Session | null) => void>()

export function currentSession(): Session | null {
	const raw = sessionStorage.getItem(KEY)
	return raw ? (JSON.parse(raw) as Session) : null
}

export function saveSession(session: Session | null): void {
	if (session) sessionStorage.setItem(KEY, JSON.stringify(session))
	else sessionStorage.removeItem(KEY)
	for (const listener of listeners) listener(session)
}

export function onSessionChange(listener: (session: Session | null) => void): () => void {
	listeners.add(listener)
	return () => listeners.delete(listener)
}

/** Values a page remembers for this tab, such as the project API key. */
export const remembered = {
	get: (name: string) => sessionStorage.getItem(`plaza.dashboard.${name}`) ?? '',
	set: (name: string, value: string) => sessionStorage.setItem(`plaza.dashboard.${name}`, value),
}
