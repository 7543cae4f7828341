// Moderation: the review queue (filtered by entity type and open/closed), each reported
// entity shown in context with its accused, reporters, tags and counts; selected
// entities closed together with one action (PATCH /community/report); the report tags
// of each entity type, added and removed; the report threshold that hides a post for
// everyone; which new posts wait for approval (post_moderation) — pending posts are the
// queue's `pending_post` entries, approved or rejected like reports. Live (web/live.ts):
// the queue's counts follow each `queue` event, and the list is read again after one
// (at most once per RELOAD_MS), so a report filed meanwhile shows without a reload.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { useThrottled } from '../live'
import { describeQueue, type QueueCounts, useLiveQueue } from '../queue'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

const TYPES = ['post', 'comment', 'reply', 'conversation', 'member', 'chatroom']

const ACTIONS = [
	{ value: 'POST_APPROVED', label: 'Approve post (restore it)' },
	{ value: 'POST_REJECTED', label: 'Reject post (delete it)' },
	{ value: 'COMMENT_APPROVED', label: 'Approve comment' },
	{ value: 'COMMENT_REJECTED', label: 'Reject comment (delete it)' },
	{ value: 'EDIT_MEMBER_PERMISSION', label: 'Close: member rights edited' },
	{ value: 'REMOVE_FROM_COMMUNITY', label: 'Remove the accused member' },
	{ value: 'PENDING_POST_APPROVED', label: 'Approve pending post (publish it)' },
	{ value: 'PENDING_POST_REJECTED', label: 'Reject pending post' },
]

const QUEUE_TYPES = [...TYPES, 'pending_post']

const RELOAD_MS = 1_000

interface User {
	uuid: string
	name: string
}
interface Report {
	id: number
	type: string
	entity_id: string
	accused_user?: User
	reported_by_user?: User
	reported_on: number
	tag?: { id: number; name: string }
	reason?: string
	is_closed: boolean
	closed_by?: User
}
interface Group {
	entity_id: string
	entity_type: string
	reports: Report[]
	reports_count: number
	reporters_count: number
}
interface Queue {
	reports_data: Group[]
	posts: Record<string, { text: string; heading?: string }>
	comments: Record<string, { text: string }>
	has_more: boolean
}

/** What the entity is, in a line: the post's or comment's text, or the member's name. */
function contextOf(group: Group, queue: Queue) {
	const accused = group.reports[0]?.accused_user
	if (group.entity_type === 'post' || group.entity_type === 'pending_post')
		return queue.posts[group.entity_id]?.text ?? '(post no longer readable)'
	if (group.entity_type === 'comment' || group.entity_type === 'reply')
		return queue.comments[group.entity_id]?.text ?? '(comment no longer readable)'
	if (group.entity_type === 'member') return `Member ${accused?.name ?? group.entity_id}`
	return `${group.entity_type} ${group.entity_id}`
}

function QueueList() {
	const filters = useForm({ entity_type: '', state: 'open' })
	const [page, setPage] = useState(1)
	const { entity_type, state } = filters.values
	const queue = useLoad(
		() =>
			call<Queue>('GET', '/community/report', {
				query: {
					page,
					page_size: 20,
					is_closed: state === 'closed' ? 'true' : 'false',
					...(entity_type ? { filter_type: entity_type } : {}),
				},
			}),
		[entity_type, state, page],
	)
	const rest = useLoad(() => call<QueueCounts>('GET', '/community/overview/queue'))
	const reloadList = useThrottled(queue.reload, RELOAD_MS)
	const refetchCounts = useThrottled(() => {
		counts.refetching()
		rest.reload()
	}, RELOAD_MS)
	const counts = useLiveQueue(rest.data, (type) => {
		if (type === 'sync') refetchCounts()
		if (type === 'queue' || type === 'sync') reloadList()
	})
	const [selected, setSelected] = useState<Set<string>>(new Set())
	const action = useForm({ action_taken: ACTIONS[0]?.value ?? '' })
	const close = action.submit(async (values) => {
		const groups = queue.data?.reports_data.filter((g) => selected.has(g.entity_id)) ?? []
		if (groups.length === 0) throw new Error('Select at least one reported entity')
		await call('PATCH', '/community/report', {
			body: {
				report_ids: groups.flatMap((g) => g.reports.map((r) => r.id)),
				action_taken: values.action_taken,
			},
		})
		setSelected(new Set())
		queue.reload()
	})
	const toggle = (id: string) =>
		setSelected((old) => {
			const next = new Set(old)
			if (next.has(id)) next.delete(id)
			else next.add(id)
			return next
		})
	const typeOptions = [
		{ value: '', label: 'All types' },
		...QUEUE_TYPES.map((t) => ({ value: t, label: t === 'pending_post' ? 'pending posts' : t })),
	]
	const stateOptions = [
		{ value: 'open', label: 'Open' },
		{ value: 'closed', label: 'Closed' },
	]
	return html`<section aria-labelledby="queue-title">
		<h2 id="queue-title">Review queue</h2>
		${counts.shown && html`<p class="queue-counts" role="status">${describeQueue(counts.shown)}</p>`}
		<form aria-label="Filter the queue" class="inline" onSubmit=${(e: Event) => e.preventDefault()}>
			<${Field} form=${filters} name="entity_type" label="Entity type" options=${typeOptions} />
			<${Field} form=${filters} name="state" label="State" options=${stateOptions} />
		</form>
		${queue.loading && html`<${Loading} what="reports" />`}
		${queue.error && html`<${LoadError} message=${queue.error} retry=${queue.reload} />`}
		${
			queue.data &&
			html`${
				queue.data.reports_data.length === 0
					? html`<p role="status">No reports here.</p>`
					: html`<table>
						<thead><tr>
							<th scope="col">Select</th><th scope="col">Type</th><th scope="col">Reported</th>
							<th scope="col">Accused</th><th scope="col">Reporters</th><th scope="col">Tags</th>
							<th scope="col">Reports</th>
						</tr></thead>
						<tbody>
							${queue.data.reports_data.map((group) => {
								const text = contextOf(group, queue.data as Queue)
								const tags = [...new Set(group.reports.map((r) => r.tag?.name).filter(Boolean))]
								return html`<tr key=${group.entity_id}>
									<td><input type="checkbox" checked=${selected.has(group.entity_id)}
										onChange=${() => toggle(group.entity_id)} aria-label=${`Select ${group.entity_type}: ${text}`} /></td>
									<td>${group.entity_type}</td>
									<td>${text}</td>
									<td>${group.reports[0]?.accused_user?.name ?? '—'}</td>
									<td>${group.reports.map((r) => r.reported_by_user?.name).join(', ')} (${group.reporters_count})</td>
									<td>${tags.join(', ')}${
										group.reports.some((r) => r.reason)
											? html`<br /><small>${group.reports
													.map((r) => r.reason)
													.filter(Boolean)
													.join('; ')}</small>`
											: ''
									}</td>
									<td>${group.reports_count}</td>
								</tr>`
							})}
						</tbody>
					</table>`
			}
			<p>
				<button type="button" disabled=${page === 1} onClick=${() => setPage(page - 1)}>Previous page</button>
				<button type="button" disabled=${!queue.data.has_more} onClick=${() => setPage(page + 1)}>Next page</button>
			</p>
			${
				state === 'open' &&
				html`<form onSubmit=${close} aria-label="Close the selected reports" class="inline" novalidate>
					<${FormError} form=${action} />
					<${Field} form=${action} name="action_taken" label="Action" options=${ACTIONS} />
					<${Submit} form=${action} label="Close selected" />
				</form>`
			}`
		}
	</section>`
}

interface Tag {
	id: number
	name: string
	entity_type: string
	needs_reason: boolean
}

function ReportTags() {
	const form = useForm({ entity_type: 'post', name: '' })
	const tags = useLoad(
		() =>
			call<{ report_tags: Tag[] }>('GET', '/community/report/tag', {
				query: { entity_type: form.values.entity_type },
			}),
		[form.values.entity_type],
	)
	const add = form.submit(async (values) => {
		await call('POST', '/community/report/tag', {
			body: { entity_type: values.entity_type, name: values.name },
		})
		form.set('name', '')
		tags.reload()
	})
	const remove = async (tag: Tag) => {
		await call('DELETE', `/community/report/tag/${tag.id}`)
		tags.reload()
	}
	return html`<section aria-labelledby="tags-title">
		<h2 id="tags-title">Report tags</h2>
		<form onSubmit=${add} aria-label="Add a report tag" class="inline" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="entity_type" label="Tags of" options=${TYPES.map((t) => ({ value: t, label: t }))} />
			<${Field} form=${form} name="name" label="New tag name" required />
			<${Submit} form=${form} label="Add tag" />
		</form>
		${tags.error && html`<${LoadError} message=${tags.error} retry=${tags.reload} />`}
		${
			tags.data &&
			html`<ul aria-label="Report tags">
				${tags.data.report_tags.map(
					(tag) => html`<li key=${tag.id}>
						${tag.name}${tag.needs_reason ? ' (needs a reason)' : ''}
						<button type="button" onClick=${() => remove(tag)} aria-label=${`Remove tag ${tag.name}`}>Remove</button>
					</li>`,
				)}
			</ul>`
		}
	</section>`
}

interface ModerationSettings {
	auto_hide_after_reports: number
	post_moderation: string
	post_moderation_first_n: number
}

function PostModeration() {
	const form = useForm({ post_moderation: 'off', post_moderation_first_n: '1' })
	const [saved, setSaved] = useState('')
	const save = form.submit(async (values) => {
		const result = await call<ModerationSettings>('PUT', '/community/settings/moderation', {
			body: {
				post_moderation: values.post_moderation,
				post_moderation_first_n: Number(values.post_moderation_first_n),
			},
		})
		setSaved(`Saved: post moderation ${result.post_moderation}`)
	})
	const options = [
		{ value: 'off', label: 'Off: posts are published at once' },
		{ value: 'new_members', label: 'New members: their first posts wait' },
		{ value: 'all', label: 'All: every member post waits' },
	]
	return html`<section aria-labelledby="pending-title">
		<h2 id="pending-title">Post approval</h2>
		<form onSubmit=${save} aria-label="Post approval" class="inline" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="post_moderation" label="Posts wait for approval" options=${options} />
			<${Field} form=${form} name="post_moderation_first_n" label="First posts that wait (new members)" type="number" inputMode="numeric" />
			<${Submit} form=${form} label="Save post approval" />
		</form>
		${saved && html`<p role="status">${saved}</p>`}
	</section>`
}

function Threshold() {
	const current = useLoad(() =>
		call<{ auto_hide_after_reports: number }>('GET', '/community/settings/moderation'),
	)
	const form = useForm({ auto_hide_after_reports: '' })
	const [saved, setSaved] = useState('')
	const save = form.submit(async (values) => {
		const result = await call<{ auto_hide_after_reports: number }>(
			'PUT',
			'/community/settings/moderation',
			{ body: { auto_hide_after_reports: Number(values.auto_hide_after_reports) } },
		)
		setSaved(`Saved: hidden for everyone after ${result.auto_hide_after_reports} reporters`)
		current.reload()
	})
	return html`<section aria-labelledby="threshold-title">
		<h2 id="threshold-title">Automatic hiding</h2>
		${current.data && html`<p>Now: a post is hidden for everyone after ${current.data.auto_hide_after_reports} distinct reporters, until a CM decides.</p>`}
		<form onSubmit=${save} aria-label="Automatic hiding" class="inline" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="auto_hide_after_reports" label="Reporters before hiding" type="number" inputMode="numeric" />
			<${Submit} form=${form} label="Save threshold" />
		</form>
		${saved && html`<p role="status">${saved}</p>`}
	</section>`
}

export function Moderation() {
	return html`<${QueueList} /><${ReportTags} /><${Threshold} /><${PostModeration} />`
}
