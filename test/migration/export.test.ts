// scripts/export.ts's engine: the import format out, streamed; importing an export into
// an empty community reproduces its posts, topics, comments, likes, connections and counts.
import { expect, test } from 'bun:test'
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportCommunity, importFromStream } from '../../src/modules/migration/service'
import { newCommunity, newUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { generateCommunity, writeNdjson } from '../support/ndjson'

const dir = mkdtempSync(join(tmpdir(), 'plaza-export-'))

const importFile = (communityId: number, path: string) =>
	importFromStream({
		communityId,
		input: createReadStream(path),
		totalBytes: null,
		rejectsPath: path.replace(/\.ndjson$/, '.rejects.ndjson'),
		dryRun: false,
		tty: false,
	})

/** The community as a user sees it, independent of internal ids. */
async function content(communityId: number) {
	const posts = await sql`
		select p.text, p.created_at::float8, p.likes_count, p.comments_count, p.visibility,
			(select array_agg(t.name order by t.name) from post_topics pt
				join topics t on t.community_id = pt.community_id and t.id = pt.topic_id
				where pt.community_id = ${communityId} and pt.post_id = p.id) as topics
		from posts p where p.community_id = ${communityId} and not p.is_deleted order by p.created_at, p.text`
	const topics = await sql`
		select t.name, t.level, t.post_count, par.name as parent from topics t
		left join topics par on par.community_id = t.community_id and par.id = t.parent_id where t.community_id = ${communityId} order by t.name`
	const comments = await sql`
		select k.text, k.level, k.likes_count, k.comments_count, k.created_at::float8 from comments k
		where k.community_id = ${communityId} order by k.created_at, k.text`
	const [totals] = await sql`
		select (select count(*)::int from users where community_id = ${communityId} and role <> 'owner') as users,
			(select count(*)::int from connections where community_id = ${communityId}) as connections`
	return { posts, topics, comments, totals }
}

test('import(export(community)) into an empty community reproduces it', async () => {
	const source = await newCommunity('export-source')
	const path = writeNdjson(
		join(dir, 'source.ndjson'),
		generateCommunity({ users: 20, posts: 50, comments: 60, likes: 120 }, 3).lines,
	)
	await importFile(source.communityId, path)
	// Content made through the API too (no customer ids: exported under plaza's own ids).
	const author = await newUser(source)
	const fan = await newUser(source)
	const post = await api('POST', '/feed/post', {
		token: author.token,
		body: { text: 'made in plaza' },
	})
	const postId = post.body.data.post._id
	await api('PUT', `/feed/post/${postId}/like`, { token: fan.token, body: { value: true } })
	const root = await api('POST', `/feed/post/${postId}/comment`, {
		token: fan.token,
		body: { text: 'hi' },
	})
	await api('POST', `/feed/post/${postId}/comment/${root.body.data.comment._id}/comment`, {
		token: author.token,
		body: { text: 'hello back' },
	})
	const deleted = await api('POST', '/feed/post', { token: author.token, body: { text: 'gone' } })
	await api('DELETE', `/feed/post/${deleted.body.data.post._id}`, { token: author.token })

	let exported = ''
	const records = await exportCommunity(source.communityId, (chunk) => {
		exported += chunk
	})
	expect(records).toBe(exported.trim().split('\n').length)
	expect(exported).not.toContain('"gone"')
	const exportPath = join(dir, 'export.ndjson')
	writeFileSync(exportPath, exported)

	const target = await newCommunity('export-target')
	const summary = await importFile(target.communityId, exportPath)
	expect(summary.rejects).toBe(0)
	const [before, after] = [await content(source.communityId), await content(target.communityId)]
	expect([...after.posts]).toEqual(before.posts.filter((p) => p.text !== 'gone'))
	expect(after.topics).toEqual(before.topics)
	expect(after.comments).toEqual(before.comments)
	expect(after.totals).toEqual(before.totals)
	expect(after.posts.find((p) => p.text === 'made in plaza')).toMatchObject({
		likes_count: 1,
		comments_count: 2,
	})
})
