// A synthetic community in the import format (DESIGN §14), deterministic for a seed:
// users, a two-level topic tree, posts with topics, comments with replies, likes of
// posts and comments, connections — written in a shuffled order, since an import must
// resolve references whatever the order. `expected` holds the exact counters.
import { writeFileSync } from 'node:fs'

export interface Community {
	lines: string[]
	counts: Record<string, number>
	likesOf: Map<string, number>
	commentsOf: Map<string, number>
}

function random(seed: number) {
	let state = seed >>> 0
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0
		return state / 2 ** 32
	}
}

export function generateCommunity(
	size: { users: number; posts: number; comments: number; likes: number },
	seed = 7,
	prefix = 'x',
): Community {
	const rnd = random(seed)
	const pick = (n: number) => Math.floor(rnd() * n)
	const base = Date.UTC(2020, 0, 1)
	const records: Record<string, unknown>[] = []
	for (let i = 0; i < size.users; i++)
		records.push({ type: 'user', user_unique_id: `${prefix}u${i}`, name: `User ${i}` })
	records.push({ type: 'topic', external_id: `${prefix}t0`, name: 'News' })
	records.push({ type: 'topic', external_id: `${prefix}t1`, name: 'Sport' })
	records.push({
		type: 'topic',
		external_id: `${prefix}t2`,
		name: 'Football',
		parent_external_id: `${prefix}t1`,
	})
	const likesOf = new Map<string, number>()
	const commentsOf = new Map<string, number>()
	for (let i = 0; i < size.posts; i++) {
		const topics = [`${prefix}t${i % 3}`]
		records.push({
			type: 'post',
			external_id: `${prefix}p${i}`,
			user_unique_id: `${prefix}u${pick(size.users)}`,
			text: `post ${i}\twith a tab`,
			created_at: base + i * 60_000,
			topic_external_ids: topics,
		})
	}
	const rootsOf: string[][] = Array.from({ length: size.posts }, () => [])
	for (let i = 0; i < size.comments; i++) {
		const post = pick(size.posts)
		const roots = rootsOf[post] as string[]
		const parent = roots.length > 0 && i % 3 === 0 ? roots[pick(roots.length)] : undefined
		const id = `${prefix}c${i}`
		if (!parent) roots.push(id)
		records.push({
			type: 'comment',
			external_id: id,
			user_unique_id: `${prefix}u${pick(size.users)}`,
			post_external_id: `${prefix}p${post}`,
			...(parent ? { parent_external_id: parent } : {}),
			text: `comment ${i}`,
			created_at: base + post * 60_000 + 1000 + i,
		})
		commentsOf.set(`${prefix}p${post}`, (commentsOf.get(`${prefix}p${post}`) ?? 0) + 1)
	}
	const liked = new Set<string>()
	while (liked.size < size.likes) {
		const user = pick(size.users)
		const post = pick(size.posts)
		const key = `${user}:${post}`
		if (liked.has(key)) continue
		liked.add(key)
		records.push({
			type: 'like',
			user_unique_id: `${prefix}u${user}`,
			post_external_id: `${prefix}p${post}`,
		})
		likesOf.set(`${prefix}p${post}`, (likesOf.get(`${prefix}p${post}`) ?? 0) + 1)
	}
	records.push({ type: 'like', user_unique_id: `${prefix}u0`, comment_external_id: `${prefix}c0` })
	records.push({
		type: 'connection',
		user_unique_id: `${prefix}u0`,
		target_user_unique_id: `${prefix}u1`,
	})
	for (let i = records.length - 1; i > 0; i--) {
		const j = pick(i + 1)
		;[records[i], records[j]] = [
			records[j] as Record<string, unknown>,
			records[i] as Record<string, unknown>,
		]
	}
	return {
		lines: records.map((r) => JSON.stringify(r)),
		counts: {
			user: size.users,
			topic: 3,
			post: size.posts,
			comment: size.comments,
			like: size.likes + 1,
			connection: 1,
		},
		likesOf,
		commentsOf,
	}
}

export function writeNdjson(path: string, lines: string[]): string {
	writeFileSync(path, `${lines.join('\n')}\n`)
	return path
}
