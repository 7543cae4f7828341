// Members: the community's members by name (all of them on opening, or those a search
// finds), with their role and whether they left, were removed or are banned. A CM
// grants or removes CM rights (PATCH /moderation/rights), removes a member (DELETE
// /community/member/remove) or bans one (POST /community/member/ban), and lifts a ban
// (DELETE /community/member/ban). Removing and banning ask to be confirmed first.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, Submit, useForm } from '../ui'

type Status = 'active' | 'left' | 'removed' | 'banned'

interface Member {
	uuid: string
	name: string
	user_unique_id: string
	role: 'member' | 'cm' | 'owner'
	status: Status
}

interface Found {
	members: Member[]
	total_count: number
}

type Action = 'remove' | 'ban'

const statusText: Record<Status, string> = {
	active: 'member',
	left: 'left',
	removed: 'removed',
	banned: 'banned',
}

function MemberRow({ member, changed }: { member: Member; changed: (member: Member) => void }) {
	const [error, setError] = useState('')
	const [busy, setBusy] = useState(false)
	const [confirming, setConfirming] = useState<Action>()
	const run = async (work: () => Promise<Partial<Member>>) => {
		setBusy(true)
		setError('')
		try {
			changed({ ...member, ...(await work()) })
			setConfirming(undefined)
		} catch (problem) {
			setError((problem as Error).message)
		} finally {
			setBusy(false)
		}
	}
	const grant = (isCm: boolean) =>
		run(async () => {
			const result = await call<{ role: Member['role'] }>('PATCH', '/moderation/rights', {
				body: { uuid: member.uuid, is_cm: isCm },
			})
			return { role: result.role }
		})
	const act = (action: Action) =>
		run(async () => {
			if (action === 'ban')
				await call('POST', '/community/member/ban', { body: { uuid: member.uuid } })
			else await call('DELETE', '/community/member/remove', { body: { uuids: [member.uuid] } })
			return { status: action === 'ban' ? 'banned' : 'removed', role: 'member' }
		})
	const liftBan = () =>
		run(async () => {
			await call('DELETE', '/community/member/ban', { body: { uuid: member.uuid } })
			return { status: 'removed' }
		})
	const name = member.name
	const active = member.status === 'active'
	const owner = member.role === 'owner'
	const button = (label: string, onClick: () => void, text: string) =>
		html`<button type="button" disabled=${busy} onClick=${onClick} aria-label=${label}>${text}</button>`
	return html`<tr>
		<td>${name}</td>
		<td><code>${member.user_unique_id ?? ''}</code></td>
		<td>${member.role === 'cm' ? 'community manager' : member.role}</td>
		<td>${statusText[member.status]}</td>
		<td class="actions">
			${active && member.role === 'member' && button(`Make ${name} a community manager`, () => grant(true), 'Make CM')}
			${active && member.role === 'cm' && button(`Remove ${name}'s CM rights`, () => grant(false), 'Remove CM')}
			${!owner && !confirming && active && button(`Remove ${name} from the community`, () => setConfirming('remove'), 'Remove')}
			${!owner && !confirming && member.status !== 'banned' && button(`Ban ${name}`, () => setConfirming('ban'), 'Ban')}
			${member.status === 'banned' && button(`Lift ${name}'s ban`, liftBan, 'Lift ban')}
			${
				confirming &&
				html`<span role="group" aria-label="Confirm">
					${button(
						confirming === 'ban' ? `Confirm: ban ${name}` : `Confirm: remove ${name}`,
						() => act(confirming),
						confirming === 'ban' ? 'Confirm ban' : 'Confirm removal',
					)}
					${button(`Keep ${name}`, () => setConfirming(undefined), 'Cancel')}
				</span>`
			}
			${error && html`<p class="error" role="alert">${error}</p>`}
		</td>
	</tr>`
}

export function Members() {
	const form = useForm({ search: '' })
	const [found, setFound] = useState<Found>()
	const load = async (search: string) =>
		setFound(await call<Found>('GET', '/community/members', { query: { search, page_size: 50 } }))
	useEffect(() => {
		load('').catch((problem) => form.fail('form', (problem as Error).message))
	}, [])
	const search = form.submit((values) => load(values.search))
	const replace = (member: Member) =>
		setFound(
			(old) =>
				old && { ...old, members: old.members.map((m) => (m.uuid === member.uuid ? member : m)) },
		)
	return html`<p>Members who left or were removed come back by opening the app again; a banned member cannot until the ban is lifted. Their posts and messages are kept.</p>
		<form onSubmit=${search} role="search" aria-label="Find members" class="inline" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="search" label="Name or user id" type="search" />
			<${Submit} form=${form} label="Find" />
		</form>
		${
			found &&
			html`<p role="status">${found.total_count} found${found.total_count > found.members.length ? `, showing ${found.members.length}` : ''}</p>
				<table>
					<thead><tr><th scope="col">Name</th><th scope="col">User id</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
					<tbody>
						${found.members.map((member) => html`<${MemberRow} key=${member.uuid} member=${member} changed=${replace} />`)}
					</tbody>
				</table>`
		}`
}
