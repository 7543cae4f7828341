// Moderators: find a member by name or id and grant or remove community-manager
// rights (PATCH /moderation/rights).
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, Submit, useForm } from '../ui'

interface Member {
	uuid: string
	name: string
	user_unique_id: string
	role: 'member' | 'cm' | 'owner'
}

function MemberRow({ member, changed }: { member: Member; changed: (member: Member) => void }) {
	const [error, setError] = useState('')
	const [busy, setBusy] = useState(false)
	const grant = async (isCm: boolean) => {
		setBusy(true)
		setError('')
		try {
			const result = await call<{ role: Member['role'] }>('PATCH', '/moderation/rights', {
				body: { uuid: member.uuid, is_cm: isCm },
			})
			changed({ ...member, role: result.role })
		} catch (problem) {
			setError((problem as Error).message)
		} finally {
			setBusy(false)
		}
	}
	return html`<tr>
		<td>${member.name}</td>
		<td><code>${member.user_unique_id}</code></td>
		<td>${member.role === 'cm' ? 'community manager' : member.role}</td>
		<td>
			${
				member.role === 'member' &&
				html`<button type="button" disabled=${busy} onClick=${() => grant(true)} aria-label=${`Make ${member.name} a community manager`}>
					Make CM
				</button>`
			}
			${
				member.role === 'cm' &&
				html`<button type="button" disabled=${busy} onClick=${() => grant(false)} aria-label=${`Remove ${member.name}'s CM rights`}>
					Remove CM
				</button>`
			}
			${error && html`<p class="error" role="alert">${error}</p>`}
		</td>
	</tr>`
}

export function Moderators() {
	const form = useForm({ search: '' })
	const [found, setFound] = useState<{ members: Member[]; total_count: number }>()
	const search = form.submit(async (values) => {
		setFound(
			await call('GET', '/community/members', { query: { search: values.search, page_size: 50 } }),
		)
	})
	const replace = (member: Member) =>
		setFound(
			(old) =>
				old && { ...old, members: old.members.map((m) => (m.uuid === member.uuid ? member : m)) },
		)
	return html`<form onSubmit=${search} role="search" aria-label="Find members" class="inline" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="search" label="Name or user id" type="search" />
			<${Submit} form=${form} label="Find" />
		</form>
		${
			found &&
			html`<p role="status">${found.total_count} found${found.total_count > found.members.length ? `, showing ${found.members.length}` : ''}</p>
				<table>
					<thead><tr><th scope="col">Name</th><th scope="col">User id</th><th scope="col">Role</th><th scope="col">Rights</th></tr></thead>
					<tbody>
						${found.members.map((member) => html`<${MemberRow} key=${member.uuid} member=${member} changed=${replace} />`)}
					</tbody>
				</table>`
		}`
}
