// The feed engine's view of topic changes: enabling, disabling or deleting a topic
// changes which posts every feed shows. Called after the change has committed.
import { refreshPosts, topicsChanged as replaceTopicPosts } from '../../timelines/post-cache'

export type TopicChange = 'enabled' | 'disabled' | 'deleted'

export async function topicsChanged(
	communityId: number,
	topicIds: string[],
	change: TopicChange,
	postIds: string[],
) {
	await replaceTopicPosts(communityId, topicIds)
	// A deleted topic's links are gone from Postgres; re-place the posts that had it.
	if (change === 'deleted' && postIds.length > 0) await refreshPosts(communityId, postIds)
}
