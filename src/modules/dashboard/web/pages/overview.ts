// Overview: the community's size and review queue, the health of its webhooks, and
// the webhook attempts and pushes of the last 24 hours as small charts (uPlot). Live
// (web/live.ts): a `queue` event sets the queue's counts as it comes (they are
// absolute); `stats` (members, posts or comments moved) and `sync` refetch the whole
// overview, at most once per REFETCH_MS however many events come.
import { html } from 'htm/preact'
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { call } from '../api'
import { useThrottled } from '../live'
import { type QueueCounts, useLiveQueue } from '../queue'
import { formatTime, LoadError, Loading, useLoad } from '../ui'

interface Overview {
	community: { id: number; name: string }
	counts: { members: number; cms: number; posts: number; comments: number; topics: number }
	queue: QueueCounts
	webhooks: {
		webhook_id: string
		webhook_type: string
		url: string
		is_active: boolean
		deactivation_reason: string | null
		pending_deliveries: number
	}[]
	webhook_attempts_24h: Hour[]
	pushes_24h: Hour[]
}

type Hour = { hour: number } & Record<string, number>

const REFETCH_MS = 3_000

/** Two outcomes per hour of the last 24 h as a line chart, with the totals as its caption. */
function HourlyChart({
	title,
	hours,
	good,
	bad,
}: {
	title: string
	hours: Hour[]
	good: string
	bad: string
}) {
	const box = useRef<HTMLDivElement>(null)
	useEffect(() => {
		if (!box.current) return
		const data: uPlot.AlignedData = [
			hours.map((hour) => hour.hour / 1000),
			hours.map((hour) => hour[good] ?? 0),
			hours.map((hour) => hour[bad] ?? 0),
		]
		const chart = new uPlot(
			{
				width: Math.min(box.current.clientWidth || 600, 900),
				height: 180,
				series: [
					{},
					{ label: good, stroke: '#1a7f37', width: 2 },
					{ label: bad, stroke: '#cf222e', width: 2 },
				],
				axes: [{}, { size: 40 }],
			},
			data,
			box.current,
		)
		return () => chart.destroy()
	}, [hours, good, bad])
	const total = (name: string) => hours.reduce((sum, hour) => sum + (hour[name] ?? 0), 0)
	const caption = `${title} per hour, last 24 h: ${total(good)} ${good}, ${total(bad)} ${bad}`
	return html`<figure>
		<div ref=${box} class="chart" role="img" aria-label=${caption}></div>
		<figcaption>${caption}</figcaption>
	</figure>`
}

export function Overview() {
	const { data, error, loading, reload } = useLoad(() =>
		call<Overview>('GET', '/community/overview'),
	)
	const refetch = useThrottled(() => {
		queue.refetching()
		reload()
	}, REFETCH_MS)
	const queue = useLiveQueue(data?.queue, (type) => {
		if (type === 'stats' || type === 'sync') refetch()
	})
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	// A refetch keeps the page as it is until the new counts come.
	if (!data) return html`<${Loading} what="the overview" />`
	const counts = [
		['Members', data.counts.members],
		['Community managers', data.counts.cms],
		['Posts', data.counts.posts],
		['Comments', data.counts.comments],
		['Topics', data.counts.topics],
		['Open reports', queue.shown?.open_reports ?? 0],
		['Posts awaiting approval', queue.shown?.pending_posts ?? 0],
	] as const
	return html`<section aria-labelledby="counts-title">
			<h2 id="counts-title">${data.community.name}</h2>
			<dl class="counts">
				${counts.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}
			</dl>
		</section>
		<section aria-labelledby="hooks-title">
			<h2 id="hooks-title">Webhooks</h2>
			${data.webhooks.length === 0 && html`<p>No webhooks yet. <a href="#/webhooks">Add one</a>.</p>`}
			<ul class="plain">
				${data.webhooks.map(
					(hook) => html`<li>
						<span class=${hook.is_active ? 'badge ok' : 'badge bad'}>
							${hook.is_active ? 'active' : 'inactive'}
						</span>
						${' '}<code>${hook.webhook_type}</code> → ${hook.url}
						${hook.pending_deliveries > 0 && html` · ${hook.pending_deliveries} pending`}
						${hook.deactivation_reason && html`<br /><small>${hook.deactivation_reason}</small>`}
					</li>`,
				)}
			</ul>
			<${HourlyChart} title="Webhook attempts" hours=${data.webhook_attempts_24h} good="delivered" bad="failed" />
			<h2>Pushes</h2>
			<${HourlyChart} title="Pushes" hours=${data.pushes_24h} good="sent" bad="failed" />
			<p><small>Updated ${formatTime(Date.now())}${loading ? ' · refreshing…' : ''}</small> <button type="button" onClick=${reload}>Refresh</button></p>
		</section>`
}
