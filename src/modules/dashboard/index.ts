// The web dashboard of DESIGN §15 at /dashboard (the page and its bundled assets,
// which hold no data), and the API only it needed: GET /community/overview and the
// review queue's counts (GET /community/overview/queue).
// Everything else the page shows comes from the public API it calls with the
// signed-in owner's or CM's token.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { type Asset, appScript, appStyles, shell } from './assets'
import { overview, reviewQueue } from './service'

const tags = ['dashboard']

// The page loads only its own script and styles and talks only to this origin.
const pageHeaders = {
	'content-type': 'text/html; charset=utf-8',
	'content-security-policy':
		"default-src 'self'; img-src 'self' data: https:; style-src 'self'; frame-ancestors 'none'",
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'no-referrer',
}

const serveAsset = (asset: Asset) =>
	new Response(asset.body, {
		headers: { 'content-type': asset.type, 'cache-control': 'no-cache' },
	})

export const dashboardModule = new Elysia({ name: 'dashboard' })
	.use(authPlugin)
	.get('/dashboard', () => new Response(shell, { headers: pageHeaders }), {
		detail: { summary: 'The community manager dashboard (web page)', tags },
	})
	.get('/dashboard/assets/app.js', async () => serveAsset(await appScript()), {
		detail: { hide: true },
	})
	.get('/dashboard/assets/app.css', async () => serveAsset(await appStyles()), {
		detail: { hide: true },
	})
	.get('/community/overview', async ({ session }) => ok(await overview(session.communityId)), {
		auth: 'cm',
		detail: {
			summary:
				'Counts of the community, webhook health and webhook attempts per hour of the last 24 h (CM/owner)',
			tags,
		},
	})
	.get(
		'/community/overview/queue',
		async ({ session }) => ok(await reviewQueue(session.communityId)),
		{
			auth: 'cm',
			detail: {
				summary:
					'Open reports and posts awaiting approval, counted (CM/owner): what the live `queue` event carries',
				tags,
			},
		},
	)
