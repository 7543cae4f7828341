// The two public shapes of a topic: the REST form (SPEC "Topic (REST form)") and the
// webhook form used inside post and comment events.
import type { TopicRow } from './repo'

export function presentTopic(topic: TopicRow) {
	return {
		id: topic.id,
		_id: topic.id,
		name: topic.name,
		priority: topic.priority,
		is_searchable: topic.is_searchable,
		parent_id: topic.parent_id ?? '',
		level: topic.level,
		is_enabled: topic.is_enabled,
		metadata: topic.metadata,
		post_count: topic.post_count,
		created_at: Number(topic.created_at),
		updated_at: Number(topic.updated_at),
	}
}

/** Webhook form: `priority` is an integer there; `parent_name` needs the parent row (findTopicsByIds joins it). */
export function presentTopicForWebhook(topic: TopicRow) {
	return {
		_id: topic.id,
		name: topic.name,
		is_enabled: topic.is_enabled,
		priority: Math.round(topic.priority),
		is_searchable: topic.is_searchable,
		parent_id: topic.parent_id ?? '',
		parent_name: topic.parent_name ?? '',
		level: topic.level,
		widget_id: '',
	}
}
