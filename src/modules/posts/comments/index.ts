// Comment routes: create, list root comments, reply, get (with replies), edit, soft delete, like toggle
// and likes list, all under /feed/post/:post_id/comment; and the post page GET /feed/post/:post_id
// (the post with its first root comments: composed here, where both are known, so
// posts/ never imports its comments/ — see docs/architecture.md).
import { Elysia } from 'elysia'
import { ok } from '../../../lib/envelope'
import { PageQuery } from '../../../lib/paging'
import { authPlugin } from '../../auth/plugin'
import { LikeBody } from '../reactions/model'
import {
	CommentListReply,
	CommentPageReply,
	CommentReply,
	LikeListReply,
	LikeReply,
	PostPageReply,
} from '../responses'
import { CommentBody, CommentParams, DeleteCommentBody, NewCommentBody, PostParams } from './model'
import {
	addComment,
	deleteComment,
	editComment,
	getComment,
	listCommentLikes,
	listRootComments,
	postPage,
	toggleCommentLike,
} from './service'

const input = (body: { text: string; temp_id?: string | null; created_at?: number }) => ({
	text: body.text,
	temp_id: body.temp_id ?? undefined,
	created_at: body.created_at,
})

export const commentsModule = new Elysia({ name: 'comments' })
	.use(authPlugin)
	.get(
		'/feed/post/:post_id',
		async ({ session, params, query }) =>
			ok(await postPage(session, params.post_id, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: PostPageReply },
			params: PostParams,
			query: PageQuery,
			detail: {
				summary: 'One post with a page of root comments (replies), users, topics and widgets',
				tags: ['posts'],
			},
		},
	)
	.post(
		'/feed/post/:post_id/comment',
		async ({ session, params, body }) =>
			ok(await addComment(session, params.post_id, null, input(body))),
		{
			auth: 'member',
			response: { 200: CommentReply },
			params: PostParams,
			body: NewCommentBody,
			detail: { summary: 'Comment on a post', tags: ['comments'] },
		},
	)
	.get(
		'/feed/post/:post_id/comment',
		async ({ session, params, query }) =>
			ok(await listRootComments(session, params.post_id, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: CommentListReply },
			params: PostParams,
			query: PageQuery,
			detail: { summary: 'Root comments of a post, oldest first', tags: ['comments'] },
		},
	)
	.post(
		'/feed/post/:post_id/comment/:comment_id/comment',
		async ({ session, params, body }) =>
			ok(await addComment(session, params.post_id, params.comment_id, input(body))),
		{
			auth: 'member',
			response: { 200: CommentReply },
			params: CommentParams,
			body: NewCommentBody,
			detail: { summary: 'Reply to a comment', tags: ['comments'] },
		},
	)
	.get(
		'/feed/post/:post_id/comment/:comment_id',
		async ({ session, params, query }) =>
			ok(await getComment(session, params.post_id, params.comment_id, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: CommentPageReply },
			params: CommentParams,
			query: PageQuery,
			detail: { summary: 'A comment with a page of replies', tags: ['comments'] },
		},
	)
	.put(
		'/feed/post/:post_id/comment/:comment_id',
		async ({ session, params, body }) =>
			ok(await editComment(session, params.post_id, params.comment_id, input(body))),
		{
			auth: 'member',
			response: { 200: CommentReply },
			params: CommentParams,
			body: CommentBody,
			detail: { summary: 'Edit a comment (its author)', tags: ['comments'] },
		},
	)
	.delete(
		'/feed/post/:post_id/comment/:comment_id',
		async ({ session, params, body }) =>
			ok(
				await deleteComment(
					session,
					params.post_id,
					params.comment_id,
					body?.delete_reason ?? body?.reason,
				),
			),
		{
			auth: 'member',
			response: { 200: CommentReply },
			params: CommentParams,
			body: DeleteCommentBody,
			detail: { summary: 'Soft-delete a comment (author, post author or CM)', tags: ['comments'] },
		},
	)
	.put(
		'/feed/post/:post_id/comment/:comment_id/like',
		async ({ session, params, body }) =>
			ok(await toggleCommentLike(session, params.post_id, params.comment_id, body ?? {})),
		{
			auth: 'member',
			response: { 200: LikeReply },
			params: CommentParams,
			body: LikeBody,
			detail: {
				summary: 'Like or unlike a comment (toggle; {value} sets it; created_at back-dates it)',
				tags: ['comments'],
			},
		},
	)
	.get(
		'/feed/post/:post_id/comment/:comment_id/like',
		async ({ session, params, query }) =>
			ok(
				await listCommentLikes(
					session,
					params.post_id,
					params.comment_id,
					query.page,
					query.page_size,
				),
			),
		{
			auth: 'member',
			response: { 200: LikeListReply },
			params: CommentParams,
			query: PageQuery,
			detail: { summary: 'Users who liked a comment', tags: ['comments'] },
		},
	)
