// The poll-votes row of the chat benchmark: `connections` members of the bench room,
// one voter per connection, each submitting ballots back to back to one open poll
// (votes may change, up to 2 of 4 options) through POST /conversation/poll/submit.
// The baseline is the bare server in its own process (bare-server.ts) driven by the
// same client loop (autocannon cannot give each connection its own token and body). Afterwards the poll as the API shows
// it must hold exactly each voter's last accepted ballot.
import { sql } from '../../src/lib/db'
import { signAccessToken } from '../../src/lib/tokens'
import type { ChatBench } from './chat-seed'
import type { Row } from './harness'

interface Load {
	port: number
	/** the bare server's port (harness.ts startCeiling) */
	barePort: number
	connections: number
	seconds: number
}

const choices = [[0], [1], [2], [3], [0, 1], [2, 3]]

interface PollView {
	id: string
	poll_answer_text: string
	polls: { id: string; no_votes: number }[]
}

async function tokenFor(bench: ChatBench, index: number, role: 'member' | 'cm') {
	return signAccessToken(
		{
			sub: bench.uuids[index] as string,
			uid: bench.userIds[index] as number,
			cid: bench.communityId,
			role,
		},
		120,
	)
}

/** Runs `worker` on `connections` loops for `seconds`; latencies of the 200 answers. */
async function drive(
	load: Load,
	name: string,
	request: (loop: number, n: number) => Promise<number>,
): Promise<Row> {
	const latencies: number[] = []
	let errors = 0
	const until = performance.now() + load.seconds * 1000
	await Promise.all(
		Array.from({ length: load.connections }, async (_, loop) => {
			for (let n = 0; performance.now() < until; n++) {
				const started = performance.now()
				const status = await request(loop, n)
				if (status === 200) latencies.push(performance.now() - started)
				else errors++
			}
		}),
	)
	latencies.sort((a, b) => a - b)
	const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0)
	return {
		name,
		rps: Math.round(latencies.length / load.seconds),
		p50: at(0.5),
		p99: at(0.99),
		errors,
	}
}

export async function measureVotes(load: Load, bench: ChatBench) {
	const base = `http://127.0.0.1:${load.port}`
	await sql`update users set role = 'cm' where id = ${bench.userIds[0] as number}`
	const cm = await tokenFor(bench, 0, 'cm')
	const created = await fetch(`${base}/conversation`, {
		method: 'POST',
		headers: { authorization: `Bearer ${cm}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			chatroom_id: bench.chatroomId,
			state: 10,
			text: 'Bench poll',
			polls: ['A', 'B', 'C', 'D'].map((text) => ({ text })),
			poll_type: 2,
			allow_vote_change: true,
			multiple_select_state: 1,
			multiple_select_no: 2,
			no_poll_expiry: true,
		}),
	})
	if (created.status !== 200) throw new Error(`poll: ${created.status} ${await created.text()}`)
	const poll = ((await created.json()) as { data: { conversation: PollView } }).data.conversation
	const optionIds = poll.polls.map((o) => o.id)
	const voters = await Promise.all(
		Array.from({ length: load.connections }, (_, i) => tokenFor(bench, i + 1, 'member')),
	)
	const last: (number[] | null)[] = voters.map(() => null)

	const bare = await drive(load, "(d) bare server, the votes' client loop", async (loop) => {
		const reply = await fetch(`http://127.0.0.1:${load.barePort}/bench/bare`, {
			headers: { authorization: `Bearer ${voters[loop]}` },
		})
		await reply.arrayBuffer()
		return reply.status
	})
	const votes = await drive(load, '(e) poll submits, 64 voters', async (loop, n) => {
		const choice = choices[(loop + n) % choices.length] as number[]
		const reply = await fetch(`${base}/conversation/poll/submit`, {
			method: 'POST',
			headers: { authorization: `Bearer ${voters[loop]}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				conversation_id: poll.id,
				polls: choice.map((i) => ({ id: optionIds[i] })),
			}),
		})
		await reply.arrayBuffer()
		if (reply.status === 200) last[loop] = choice
		return reply.status
	})
	return { bare, votes, exact: await checkTotals(base, cm, bench, poll.id, optionIds, last) }
}

/** The poll as the CM sees it must count exactly each voter's last accepted ballot. */
async function checkTotals(
	base: string,
	cm: string,
	bench: ChatBench,
	conversationId: string,
	optionIds: string[],
	last: (number[] | null)[],
) {
	const expected = optionIds.map(() => 0)
	for (const choice of last) for (const i of choice ?? []) (expected[i] as number)++
	const voters = last.filter((choice) => choice !== null).length
	const reply = await fetch(`${base}/conversation?chatroom_id=${bench.chatroomId}&paginate_by=5`, {
		headers: { authorization: `Bearer ${cm}` },
	})
	const page = ((await reply.json()) as { data: { conversations: PollView[] } }).data.conversations
	const seen = page.find((c) => c.id === conversationId)
	if (!seen) throw new Error('the bench poll is not on the newest page')
	const counted = seen.polls.map((o) => o.no_votes)
	const ok =
		counted.join() === expected.join() &&
		seen.poll_answer_text === `${voters} members voted on this poll`
	return { ok, expected, counted, text: seen.poll_answer_text }
}
