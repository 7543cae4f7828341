// User tags in post texts: `<<Display Name|route://member/<uuid>>>`; clients also
// write user_profile, member_profile or participants in place of member.
const TAG =
	/<<([^|<>]*)\|route:\/\/(?:member|user_profile|member_profile|participants)\/([0-9a-fA-F-]{36})>>/g

/** The distinct uuids tagged in the texts, in order of appearance. */
export function taggedUuids(...texts: string[]): string[] {
	const found = new Set<string>()
	for (const text of texts)
		for (const match of text.matchAll(TAG)) found.add((match[2] as string).toLowerCase())
	return [...found]
}
