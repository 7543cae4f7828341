// Chatrooms and cohorts: create cohorts from member uuids, create (private)
// chatrooms, attach cohorts with an access level, detach them, and copy a room's
// share link for a cohort (DESIGN §8).
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

interface Cohort {
	cohort_id: number
	name: string
	total_members: number
}

interface Chatroom {
	id: string
	title: string
	header: string
	type: number
	is_secret: boolean
	participants_count: number
	cohorts: Cohort[]
}

const accessLevels = [
	{ value: '2', label: '2 — full: read and post' },
	{ value: '1', label: '1 — restricted: read only' },
	{ value: '0', label: '0 — no access' },
]

/** uuids one per line or separated by commas or spaces. */
const uuidsOf = (text: string) => [...new Set(text.split(/[\s,;]+/).filter(Boolean))]

function CreateCohort({ created }: { created: () => void }) {
	const form = useForm({ name: '', uuids: '' }, { members: 'uuids', uuid: 'uuids' })
	const [done, setDone] = useState('')
	const create = form.submit(async (values) => {
		setDone('')
		const { cohort_data } = await call<{ cohort_data: Cohort }>('POST', '/community/cohort', {
			body: { name: values.name, uuids: uuidsOf(values.uuids) },
		})
		setDone(`Cohort ${cohort_data.name} created with ${cohort_data.total_members} members.`)
		form.set('name', '')
		form.set('uuids', '')
		created()
	})
	return html`<form onSubmit=${create} aria-label="Create a cohort" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="name" label="Cohort name" required />
		<${Field}
			form=${form}
			name="uuids"
			label="Members (uuids)"
			hint="Paste uuids, one per line or separated by commas"
			rows=${4}
		/>
		<${Submit} form=${form} label="Create cohort" />
		${done && html`<p class="done" role="status">${done}</p>`}
	</form>`
}

function CreateChatroom({ created }: { created: () => void }) {
	const form = useForm({ title: '', header: '', is_secret: 'true', type: '0' })
	const create = form.submit(async (values) => {
		await call('POST', '/chatroom', {
			body: {
				title: values.title,
				header: values.header,
				is_secret: values.is_secret === 'true',
				type: Number(values.type),
			},
		})
		form.set('title', '')
		form.set('header', '')
		created()
	})
	return html`<form onSubmit=${create} aria-label="Create a chatroom" class="grid" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="title" label="Chatroom title" required />
		<${Field} form=${form} name="header" label="Header" />
		<${Field}
			form=${form}
			name="is_secret"
			label="Visibility"
			options=${[
				{ value: 'true', label: 'private (secret): cohorts only' },
				{ value: 'false', label: 'open to every member' },
			]}
		/>
		<${Field}
			form=${form}
			name="type"
			label="Kind"
			options=${[
				{ value: '0', label: 'conversation' },
				{ value: '7', label: 'announcement (only CMs post)' },
			]}
		/>
		<${Submit} form=${form} label="Create chatroom" />
	</form>`
}

function AttachCohort({
	room,
	cohorts,
	changed,
}: {
	room: Chatroom
	cohorts: Cohort[]
	changed: () => void
}) {
	const free = cohorts.filter(
		(cohort) => !room.cohorts.some((c) => c.cohort_id === cohort.cohort_id),
	)
	const form = useForm({
		cohort_id: String(free[0]?.cohort_id ?? ''),
		cohort_access: '2',
		add_existing_members: 'false',
	})
	const attach = form.submit(async (values) => {
		const cohortId = Number(values.cohort_id)
		await call('POST', '/chatroom/cohort', {
			body: {
				chatroom_id: room.id,
				cohort_ids: [cohortId],
				add_existing_members: values.add_existing_members === 'true',
			},
		})
		if (values.cohort_access !== '2')
			await call('PUT', '/chatroom/cohort/access', {
				body: {
					chatroom_id: room.id,
					cohort_id: cohortId,
					cohort_access: Number(values.cohort_access),
				},
			})
		changed()
	})
	if (free.length === 0) return null
	return html`<form onSubmit=${attach} aria-label=${`Attach a cohort to ${room.title}`} class="inline" novalidate>
		<${FormError} form=${form} />
		<${Field}
			form=${form}
			name="cohort_id"
			label="Cohort"
			options=${free.map((cohort) => ({ value: String(cohort.cohort_id), label: cohort.name }))}
		/>
		<${Field} form=${form} name="cohort_access" label="Access" options=${accessLevels} />
		<${Field}
			form=${form}
			name="add_existing_members"
			label="Seat its members now"
			options=${[
				{ value: 'false', label: 'no, they join themselves' },
				{ value: 'true', label: 'yes, add them to the room' },
			]}
		/>
		<${Submit} form=${form} label="Attach" />
	</form>`
}

function AttachedCohort({
	room,
	cohort,
	access,
	changed,
	detached,
}: {
	room: Chatroom
	cohort: Cohort
	access: number
	changed: () => void
	/** Told the outcome, which the card shows: this item is gone once the room reloads. */
	detached: (message: string) => void
}) {
	const [error, setError] = useState('')
	const [link, setLink] = useState('')
	const act = async (work: () => Promise<void>) => {
		setError('')
		try {
			await work()
		} catch (problem) {
			setError((problem as Error).message)
		}
	}
	const setAccess = (value: string) =>
		act(async () => {
			await call('PUT', '/chatroom/cohort/access', {
				body: { chatroom_id: room.id, cohort_id: cohort.cohort_id, cohort_access: Number(value) },
			})
			changed()
		})
	const detach = () =>
		act(async () => {
			const result = await call<{ removed_participant_count: number }>(
				'DELETE',
				'/chatroom/cohort',
				{
					body: { chatroom_id: room.id, cohort_id: cohort.cohort_id },
				},
			)
			detached(
				`${cohort.name} detached; ${result.removed_participant_count} participants left the room.`,
			)
			changed()
		})
	const share = () =>
		act(async () => {
			const { chatroom_share } = await call<{ chatroom_share: { share_url: string } }>(
				'GET',
				'/chatroom/share',
				{ query: { chatroom_id: room.id, cohort_id: cohort.cohort_id } },
			)
			setLink(chatroom_share.share_url)
			await navigator.clipboard?.writeText(chatroom_share.share_url).catch(() => {})
		})
	const selectId = `access-${room.id}-${cohort.cohort_id}`
	return html`<li>
		<span class="name">${cohort.name}</span> <small>${cohort.total_members} members</small>
		<label for=${selectId} class="inline-label">Access</label>
		<select id=${selectId} value=${String(access)} onChange=${(event: Event) => setAccess((event.target as HTMLSelectElement).value)}>
			${accessLevels.map((level) => html`<option value=${level.value}>${level.label}</option>`)}
		</select>
		<button type="button" onClick=${share} aria-label=${`Copy the share link of ${room.title} for ${cohort.name}`}>Copy share link</button>
		<button type="button" class="danger" onClick=${detach} aria-label=${`Detach ${cohort.name} from ${room.title}`}>Detach</button>
		${link && html`<p role="status"><code>${link}</code></p>`}
		${error && html`<p class="error" role="alert">${error}</p>`}
	</li>`
}

function ChatroomCard({
	room,
	cohorts,
	changed,
}: {
	room: Chatroom
	cohorts: Cohort[]
	changed: () => void
}) {
	const access = useLoad(
		() =>
			call<{ cohort_data: { cohort_id: number; cohort_access: number }[] }>(
				'GET',
				'/chatroom/cohort/access',
				{
					query: { chatroom_id: room.id },
				},
			),
		[room],
	)
	const levelOf = (cohortId: number) =>
		access.data?.cohort_data.find((entry) => entry.cohort_id === cohortId)?.cohort_access ?? 2
	const [notice, setNotice] = useState('')
	const refresh = () => {
		access.reload()
		changed()
	}
	return html`<li class="card">
		<p>
			<strong>${room.title}</strong>${' '}
			${room.is_secret && html`<span class="badge bad">private</span>`}${' '}
			${room.type === 7 && html`<span class="badge">announcement</span>`}${' '}
			<small>${room.participants_count} participants · id ${room.id}</small>
		</p>
		${
			room.cohorts.length > 0 &&
			html`<ul class="plain">
			${room.cohorts.map((cohort) => html`<${AttachedCohort} key=${cohort.cohort_id} room=${room} cohort=${cohort} access=${levelOf(cohort.cohort_id)} changed=${refresh} detached=${setNotice} />`)}
		</ul>`
		}
		${notice && html`<p class="done" role="status">${notice}</p>`}
		<${AttachCohort} room=${room} cohorts=${cohorts} changed=${refresh} />
	</li>`
}

export function Chatrooms() {
	const cohorts = useLoad(() => call<{ cohorts: Cohort[] }>('GET', '/community/cohort'))
	const rooms = useLoad(() =>
		call<{ chatrooms: Chatroom[]; total_chatroom_count: number }>('GET', '/chatroom', {
			query: { page_size: 100 },
		}),
	)
	const reload = () => {
		cohorts.reload()
		rooms.reload()
	}
	return html`<h2>Cohorts</h2>
		<${CreateCohort} created=${cohorts.reload} />
		${cohorts.error && html`<${LoadError} message=${cohorts.error} retry=${cohorts.reload} />`}
		${cohorts.loading && !cohorts.data && html`<${Loading} what="cohorts" />`}
		<ul class="plain" aria-label="Cohorts">
			${(cohorts.data?.cohorts ?? []).map(
				(cohort) =>
					html`<li><span class="name">${cohort.name}</span> <small>${cohort.total_members} members · id ${cohort.cohort_id}</small></li>`,
			)}
		</ul>
		<h2>Chatrooms</h2>
		<${CreateChatroom} created=${rooms.reload} />
		${rooms.error && html`<${LoadError} message=${rooms.error} retry=${rooms.reload} />`}
		${rooms.loading && !rooms.data && html`<${Loading} what="chatrooms" />`}
		${rooms.data && rooms.data.chatrooms.length === 0 && html`<p>No chatrooms yet.</p>`}
		<ul class="plain" aria-label="Chatrooms">
			${(rooms.data?.chatrooms ?? []).map(
				(room) =>
					html`<${ChatroomCard} key=${room.id} room=${room} cohorts=${cohorts.data?.cohorts ?? []} changed=${reload} />`,
			)}
		</ul>`
}
