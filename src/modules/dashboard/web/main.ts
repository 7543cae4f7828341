// The dashboard shell: the sign-in page without a session; with one, a navigation
// (plain links, so the keyboard and the back button work) and the page of the hash.
import { html } from 'htm/preact'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { call } from './api'
import { startLive, stopLive, useLiveStatus } from './live'
import { CustomActivity } from './pages/activity'
import { Chatrooms } from './pages/chatrooms'
import { Import } from './pages/import'
import { Members } from './pages/members'
import { Moderation } from './pages/moderation'
import { Overview } from './pages/overview'
import { PushCredentials } from './pages/push'
import { Settings } from './pages/settings'
import { SignIn } from './pages/sign-in'
import { Topics } from './pages/topics'
import { Webhooks } from './pages/webhooks'
import { currentSession, onSessionChange, saveSession } from './session'

const pages = [
	{ path: 'overview', title: 'Overview', view: Overview },
	{ path: 'push', title: 'Push credentials', view: PushCredentials },
	{ path: 'topics', title: 'Topics', view: Topics },
	{ path: 'settings', title: 'Settings', view: Settings },
	{ path: 'members', title: 'Members', view: Members },
	{ path: 'moderation', title: 'Moderation', view: Moderation },
	{ path: 'chatrooms', title: 'Chatrooms and cohorts', view: Chatrooms },
	{ path: 'activity', title: 'Custom activity', view: CustomActivity },
	{ path: 'webhooks', title: 'Webhooks', view: Webhooks },
	{ path: 'import', title: 'Import', view: Import },
]

const liveLabels = {
	off: '',
	connecting: 'Live updates: connecting…',
	reconnecting: 'Live updates: reconnecting…',
	live: 'Live updates: on',
}

const pathOfHash = () => location.hash.replace(/^#\/?/, '') || 'overview'

function useHashPath() {
	const [path, setPath] = useState(pathOfHash())
	useEffect(() => {
		const update = () => setPath(pathOfHash())
		addEventListener('hashchange', update)
		return () => removeEventListener('hashchange', update)
	}, [])
	return path
}

async function signOut() {
	const session = currentSession()
	try {
		if (session)
			await call('POST', '/user/logout', { body: { refresh_token: session.refresh_token } })
	} finally {
		saveSession(null)
	}
}

function App() {
	const [session, setSession] = useState(currentSession())
	useEffect(() => onSessionChange(setSession), [])
	const path = useHashPath()
	// One live connection for every page, while signed in (web/live.ts).
	const signedIn = session !== null
	useEffect(() => {
		if (signedIn) startLive()
		else stopLive()
	}, [signedIn])
	const live = useLiveStatus()
	const page = pages.find((candidate) => candidate.path === path) ?? pages[0]
	useEffect(() => {
		document.title = session ? `${page.title} · plaza dashboard` : 'Sign in · plaza dashboard'
		document.getElementById('main')?.focus()
	}, [page, session])
	if (!session) return html`<${SignIn} />`
	return html`<a class="skip" href="#main" onClick=${(event: Event) => {
		event.preventDefault()
		document.getElementById('main')?.focus()
	}}>Skip to content</a>
		<header class="top">
			<strong>plaza</strong>
			<span class="community">${session.community?.name ?? ''}</span>
			<span class="live" role="status">${liveLabels[live]}</span>
			<span class="who">${session.user.name}</span>
			<button type="button" onClick=${signOut}>Sign out</button>
		</header>
		<nav aria-label="Dashboard">
			<ul>
				${pages.map(
					(item) => html`<li>
						<a href=${`#/${item.path}`} aria-current=${item === page ? 'page' : undefined}>${item.title}</a>
					</li>`,
				)}
			</ul>
		</nav>
		<main id="main" tabindex="-1">
			<h1>${page.title}</h1>
			<${page.view} key=${page.path} />
		</main>`
}

const root = document.getElementById('app')
if (root) {
	root.textContent = ''
	render(html`<${App} />`, root)
}
