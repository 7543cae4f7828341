// The two paths of a post search (word-frequency.ts): walking the community's posts by
// time and the GIN index answer the same rows, page by page, with every visibility rule
// applied on both (a private post and a blocked author's, beside posts that are found);
// and what the path choice reads of a search.
import { beforeAll, describe, expect, test } from 'bun:test'
import { searchPostIds } from '../../src/modules/search/repo'
import { searchWords } from '../../src/modules/search/word-frequency'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { block } from '../support/connections'
import { newPost } from '../support/content'
import { sql } from '../support/db'

let reader: TestUser
let communityId: number
const found: string[] = []

beforeAll(async () => {
	const community = await newCommunity()
	communityId = community.communityId
	reader = await newUser(community, { name: 'Reader' })
	const author = await newUser(community, { name: 'Author' })
	const blocked = await newUser(community, { name: 'Blocked' })
	await block(community, reader, blocked)
	for (let i = 0; i < 5; i++) {
		found.push(await newPost(author, { text: `walkword number ${i}${i % 2 ? ' walkword' : ''}` }))
		await newPost(author, { text: `walkword kept private ${i}`, visibility: 'private' })
		await newPost(blocked, { text: `walkword by the blocked ${i}` })
		await newPost(author, { text: `another word ${i}` })
	}
})

describe('post search paths', () => {
	test('the time walk and the GIN index answer the same pages', async () => {
		const viewer = { userId: reader.id, communityId, isCm: false }
		const page = (offset: number, walk: boolean) =>
			searchPostIds(sql, { viewer, search: 'walkword', limit: 2, offset, now: Date.now() }, walk)
		const walked: string[] = []
		const indexed: string[] = []
		for (let offset = 0; offset < 6; offset += 2) {
			const [byTime, byIndex] = await Promise.all([page(offset, true), page(offset, false)])
			expect(byTime).toEqual(byIndex)
			walked.push(...byTime)
			indexed.push(...byIndex)
		}
		expect(walked.sort()).toEqual([...found].sort())
		expect(indexed.sort()).toEqual([...found].sort())
	})

	test("the words the path choice weighs: folded like the posts' vector; or and - take the index", () => {
		expect(searchWords('  Crème  BRÛLÉE ')).toEqual(['creme', 'brulee'])
		expect(searchWords('"sun rise"')).toEqual(['sun', 'rise'])
		expect(searchWords('sun or moon')).toBeNull()
		expect(searchWords('sun -moon')).toBeNull()
		expect(searchWords('')).toEqual([])
	})
})
