// Block routes: PUT|GET /user/:uuid/block, where :uuid is the caller.
import { Elysia } from 'elysia'
import { ok } from '../../../lib/envelope'
import { badRequest } from '../../../lib/errors'
import { paging } from '../../../lib/paging'
import { authPlugin } from '../../auth/plugin'
import { BlockBody, BlockListQuery, UserParams } from './model'
import { getBlocked, setBlock } from './service'

const tags = ['blocks']

export const blocksModule = new Elysia({ name: 'blocks' })
	.use(authPlugin)
	.put(
		'/user/:uuid/block',
		async ({ session, params, body }) => {
			const flag = body.shouldBlock ?? body.should_block
			if (flag === undefined) throw badRequest('shouldBlock is required')
			const data = await setBlock(session, params.uuid, body.uuid, flag)
			return ok(data)
		},
		{
			auth: 'member',
			params: UserParams,
			body: BlockBody,
			detail: { summary: 'Block or unblock a member', tags },
		},
	)
	.get(
		'/user/:uuid/block',
		async ({ session, params, query }) => {
			const { page, pageSize } = paging(query.page, query.pageSize ?? query.page_size)
			const data = await getBlocked(session, params.uuid, page, pageSize)
			return ok(data)
		},
		{
			auth: 'member',
			params: UserParams,
			query: BlockListQuery,
			detail: { summary: 'Members the caller has blocked', tags },
		},
	)
