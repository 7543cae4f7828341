// User tags in texts (posts, comments, chat messages): `<<Display Name|route://member/<uuid>>>`;
// clients also write user_profile, member_profile or participants in place of member.
// Finding the tagged users and recording the new tags is one function for every writer.
import type { Db } from '../../lib/db'
import { findUsersByUuids, type UserRow } from './repo'

const TAG =
	/<<([^|<>]*)\|route:\/\/(?:member|user_profile|member_profile|participants)\/([0-9a-fA-F-]{36})>>/g

/** The distinct uuids tagged in the texts, in order of appearance. */
export function taggedUuids(...texts: string[]): string[] {
	const found = new Set<string>()
	for (const text of texts)
		for (const match of text.matchAll(TAG)) found.add((match[2] as string).toLowerCase())
	return [...found]
}

/**
 * Tags the users of the community named in the texts: `record` writes the tag rows of
 * their ids (the post's, comment's or message's own table) and returns the ids it
 * added (it is called with no ids too: a post's edit removes the tags it no longer
 * names). Returns the newly tagged users, for the `*.tagged` events and activities.
 */
export async function tagUsers(
	db: Db,
	communityId: number,
	texts: string[],
	record: (userIds: number[]) => Promise<number[]>,
): Promise<UserRow[]> {
	const users = await findUsersByUuids(db, communityId, taggedUuids(...texts))
	const added = new Set(await record(users.map((u) => u.id)))
	return users.filter((u) => added.has(u.id))
}
