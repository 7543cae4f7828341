// Topics: the community's two-level tree; create a top-level (L0) topic or a subtopic
// (L1), rename, set priority, enable or disable, and delete a topic with its subtree
// after a confirmation.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { Field, FormError, LoadError, Loading, Submit, useForm, useLoad } from '../ui'

interface Topic {
	id: string
	name: string
	priority: number
	parent_id: string
	level: number
	is_enabled: boolean
	post_count: number
}

async function allTopics(): Promise<Topic[]> {
	const topics: Topic[] = []
	for (let page = 1; ; page++) {
		const data = await call<{ topics: Topic[]; total: number }>('GET', '/feed/topic', {
			query: { page, page_size: 100, topics_order_by: 'priority' },
		})
		topics.push(...data.topics)
		if (data.topics.length < 100 || topics.length >= data.total) return topics
	}
}

function CreateTopic({ roots, done }: { roots: Topic[]; done: () => void }) {
	const form = useForm({ name: '', parent_id: '' }, { parent: 'parent_id', topic: 'name' })
	const create = form.submit(async (values) => {
		const topic = {
			name: values.name,
			...(values.parent_id ? { parent_id: values.parent_id } : {}),
		}
		await call('POST', '/feed/topic', { body: { topics: [topic] } })
		form.set('name', '')
		done()
	})
	const parents = [
		{ value: '', label: '— top level (L0) —' },
		...roots.map((root) => ({ value: root.id, label: `under ${root.name} (L1)` })),
	]
	return html`<form onSubmit=${create} aria-label="Create a topic" class="inline" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="name" label="New topic name" required />
		<${Field} form=${form} name="parent_id" label="Place" options=${parents} />
		<${Submit} form=${form} label="Create topic" />
	</form>`
}

function EditTopic({ topic, done }: { topic: Topic; done: () => void }) {
	const form = useForm({ name: topic.name, priority: String(topic.priority) })
	const save = form.submit(async (values) => {
		await call('PUT', `/feed/topic/${topic.id}`, {
			body: { name: values.name, priority: Number(values.priority) },
		})
		done()
	})
	return html`<form onSubmit=${save} aria-label=${`Edit ${topic.name}`} class="inline" novalidate>
		<${FormError} form=${form} />
		<${Field} form=${form} name="name" label="Name" required />
		<${Field} form=${form} name="priority" label="Priority" type="number" />
		<${Submit} form=${form} label="Save" />
		<button type="button" onClick=${done}>Cancel</button>
	</form>`
}

function TopicRow({
	topic,
	children,
	changed,
}: {
	topic: Topic
	children: Topic[]
	changed: () => void
}) {
	const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view')
	const [error, setError] = useState('')
	const act = (work: () => Promise<unknown>) => async () => {
		setError('')
		try {
			await work()
			changed()
		} catch (failure) {
			setError((failure as Error).message)
		}
	}
	const toggle = act(() =>
		call('PUT', `/feed/topic/${topic.id}`, { body: { is_enabled: !topic.is_enabled } }),
	)
	const remove = act(() => call('DELETE', '/feed/topic', { body: { topic_ids: [topic.id] } }))
	const finish = () => {
		setMode('view')
		changed()
	}
	return html`<li>
		<div class="row">
			${
				mode === 'edit'
					? html`<${EditTopic} topic=${topic} done=${finish} />`
					: html`<span class="name">${topic.name}</span>
							<small>priority ${topic.priority} · ${topic.post_count} posts</small>
							<span class=${topic.is_enabled ? 'badge ok' : 'badge bad'}>
								${topic.is_enabled ? 'enabled' : 'disabled'}
							</span>
							<button type="button" onClick=${() => setMode('edit')} aria-label=${`Edit ${topic.name}`}>Edit</button>
							<button type="button" onClick=${toggle} aria-label=${`${topic.is_enabled ? 'Disable' : 'Enable'} ${topic.name}`}>
								${topic.is_enabled ? 'Disable' : 'Enable'}
							</button>
							${
								mode === 'confirm'
									? html`<span role="alert">
											Delete ${topic.name}${children.length > 0 && ` and its ${children.length} subtopics`}?
											<button type="button" class="danger" onClick=${remove}>Yes, delete</button>
											<button type="button" onClick=${() => setMode('view')}>Keep it</button>
										</span>`
									: html`<button type="button" onClick=${() => setMode('confirm')} aria-label=${`Delete ${topic.name}`}>
											Delete
										</button>`
							}`
			}
		</div>
		${error && html`<p class="error" role="alert">${error}</p>`}
		${
			children.length > 0 &&
			html`<ul>
				${children.map((child) => html`<${TopicRow} key=${child.id} topic=${child} children=${[]} changed=${changed} />`)}
			</ul>`
		}
	</li>`
}

export function Topics() {
	const { data, error, loading, reload } = useLoad(allTopics)
	if (error) return html`<${LoadError} message=${error} retry=${reload} />`
	if (loading && !data) return html`<${Loading} what="topics" />`
	const topics = data ?? []
	const roots = topics.filter((topic) => !topic.parent_id)
	const childrenOf = (id: string) => topics.filter((topic) => topic.parent_id === id)
	return html`<${CreateTopic} roots=${roots} done=${reload} />
		${roots.length === 0 && html`<p>No topics yet.</p>`}
		<ul class="tree" aria-label="Topics">
			${roots.map(
				(root) =>
					html`<${TopicRow} key=${root.id} topic=${root} children=${childrenOf(root.id)} changed=${reload} />`,
			)}
		</ul>`
}
