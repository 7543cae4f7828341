// The feed engine's view of topic changes: disabling, enabling or deleting a topic
// changes which cached posts are hidden. Kept in one place so the service stays plain.
export type TopicChange = 'enabled' | 'disabled' | 'deleted'

export async function topicsChanged(
	_communityId: number,
	_topicIds: string[],
	_change: TopicChange,
	_postIds: string[],
): Promise<void> {}
