// Ranking of the personalised feed (DESIGN section 6): one pure function, so the
// recompute job and the read-time scoring of fresh posts agree exactly.
//
//   score = recency × (1 + engagement) × (1 + affinity) × pinned
//
// - recency    0.5 ^ (age / 24 h): a post loses half its weight every day, so
//              yesterday's post needs about twice the engagement and affinity of a
//              new one to stay level with it.
// - engagement ENGAGEMENT_WEIGHT × ln(1 + likes + 2·comments + 3·shares + 0.05·reach):
//              logarithmic, so a viral post cannot bury everything for days;
//              comments and shares cost the reader more than a like, reach least.
// - affinity   CONNECTION_BOOST when the viewer follows the author
//              + AUTHOR_WEIGHT × ln(1 + the viewer's recent likes/comments on the author's posts)
//              + TOPIC_WEIGHT × ln(1 + the viewer's recent likes/comments in the post's topics)
// - pinned     PINNED_BOOST for a pinned post, 1 otherwise.
//
// Scores are relative to `now`, and a post newer than `now` scores above 1: the
// recency factor is exponential, so scores taken at one reference time keep their
// order at any other. The read path scores fresh posts at the last recompute's
// time, which makes them comparable with the stored scores. Negative counts count
// as zero.

export interface RankInput {
	createdAt: number
	likes: number
	comments: number
	shares: number
	reach: number
	isPinned: boolean
	/** The viewer follows the author (a connection). */
	isConnection: boolean
	/** The viewer's recent interactions with the author's posts (likes 1, comments 2). */
	authorAffinity: number
	/** The viewer's recent interactions in the post's topics, summed over them. */
	topicAffinity: number
}

export const RankWeights = {
	HALF_LIFE_MS: 24 * 3600 * 1000,
	ENGAGEMENT_WEIGHT: 0.5,
	CONNECTION_BOOST: 0.5,
	AUTHOR_WEIGHT: 0.3,
	TOPIC_WEIGHT: 0.2,
	PINNED_BOOST: 2,
} as const

const nonNegative = (n: number) => (Number.isFinite(n) && n > 0 ? n : 0)

export function rankPost(input: RankInput, now: number, w = RankWeights): number {
	const age = now - input.createdAt
	const recency = 0.5 ** (age / w.HALF_LIFE_MS)
	const interactions =
		nonNegative(input.likes) +
		2 * nonNegative(input.comments) +
		3 * nonNegative(input.shares) +
		0.05 * nonNegative(input.reach)
	const engagement = w.ENGAGEMENT_WEIGHT * Math.log1p(interactions)
	const affinity =
		(input.isConnection ? w.CONNECTION_BOOST : 0) +
		w.AUTHOR_WEIGHT * Math.log1p(nonNegative(input.authorAffinity)) +
		w.TOPIC_WEIGHT * Math.log1p(nonNegative(input.topicAffinity))
	return recency * (1 + engagement) * (1 + affinity) * (input.isPinned ? w.PINNED_BOOST : 1)
}

/** The topic affinity of a post: the viewer's weights of its topics, summed. */
export function topicAffinityOf(topicIds: string[], weights: Record<string, number>): number {
	let sum = 0
	for (const id of topicIds) sum += weights[id] ?? 0
	return sum
}
