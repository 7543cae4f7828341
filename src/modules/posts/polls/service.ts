// Feed polls through feed-js's PollClient: add an option, vote, list voters. The poll
// engine (modules/polls feed-poll.ts) holds the rules; this face adds who may reach a
// poll: whoever may see its post (posts/access.ts), so the poll of a private or
// connections-only post, a deleted post, a post edited without it, or another
// community's is 404.
import { sql } from '../../../lib/db'
import { AppError, notFound } from '../../../lib/errors'
import { isId } from '../../../lib/ids'
import { paging } from '../../../lib/paging'
import { presentFeedUser } from '../../../timelines'
import { isCm, type Session } from '../../auth/session'
import { parseIdList } from '../../feeds/model'
import {
	addFeedOption,
	type FeedPollRow,
	feedPollVoters,
	feedPollWidget,
	findPollOfPost,
	voteFeedPoll,
} from '../../polls/feed-poll'
import { visiblePost } from '../access'
import { widgetIdsOf } from '../repo'

async function reachablePoll(session: Session, pollId: string): Promise<FeedPollRow> {
	const poll = isId(pollId) ? await findPollOfPost(sql, session.communityId, pollId) : null
	if (!poll) throw notFound('Poll')
	try {
		await visiblePost(sql, session, poll.post_id)
	} catch (error) {
		if (error instanceof AppError && error.status === 404) throw notFound('Poll')
		throw error
	}
	// An edit that dropped the poll attachment unlinked its widget: the poll is gone.
	if (!(await widgetIdsOf(sql, session.communityId, poll.post_id)).includes(poll.id))
		throw notFound('Poll')
	return poll
}

const viewerOf = (session: Session) => ({ userId: session.userId, isCm: isCm(session) })

/** The poll's widget as the caller sees it, under both names feed-js reads (`widget`, `widgets`). */
async function widgetReply(session: Session, pollId: string) {
	const poll = await reachablePoll(session, pollId)
	const widget = await feedPollWidget(sql, poll, viewerOf(session))
	return { widget: { [poll.id]: widget }, widgets: { [poll.id]: widget } }
}

export async function addPollOption(session: Session, pollId: string, text: string) {
	const poll = await reachablePoll(session, pollId)
	const option = await sql.begin((tx) => addFeedOption(tx, poll, session.userId, text))
	return { ...(await widgetReply(session, pollId)), option: { id: option.id, text: option.text } }
}

export async function submitPollVote(session: Session, pollId: string, votes: (string | number)[]) {
	const poll = await reachablePoll(session, pollId)
	await voteFeedPoll(
		sql,
		poll,
		session.userId,
		votes.map((id) => String(id)),
	)
	return widgetReply(session, pollId)
}

export async function getPollVotes(
	session: Session,
	pollId: string,
	query: { votes?: string | string[]; page?: number; page_size?: number },
) {
	const poll = await reachablePoll(session, pollId)
	const viewer = viewerOf(session)
	const page = paging(query.page, query.page_size, 10)
	const { votes, users } = await feedPollVoters(
		sql,
		poll,
		viewer,
		parseIdList('votes', query.votes),
		page,
	)
	const widget = await feedPollWidget(sql, poll, viewer)
	return {
		votes,
		users: Object.fromEntries(users.map((u) => [u.uuid, presentFeedUser(u)])),
		widget: { [poll.id]: widget },
		widgets: { [poll.id]: widget },
		topics: {},
	}
}
