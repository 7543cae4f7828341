// Every Redis key of plaza is built here. Each carries a hash tag ({c<community>},
// {u<user>}, {p<post>}, ...) so the same code runs on a Redis Cluster: a command
// only ever touches keys of one tag. What may share one command, MULTI or Lua script
// (same tag by construction): a community's feed sets, post and user caches and
// catalog ({c<id>}); a user's connection feed and its live marker, the personalised
// feed and its meta, and the notification feed copy ({u<id>}); the two webhook schedule sets ({wh}). Batches over many
// users' keys (fan-out) differ in tag and go through lib/redis-slots.ts pipelineBySlot.
export const keys = {
	// rate limits and OTPs
	rateLimit: (scope: 'ip' | 'user' | 'logs' | 'preview', id: string, window: number) =>
		`rl:{${scope}${id}}:${window}`,
	// a user's auth hash: revoked token families (`f:<family>`, `all`) and the role copy
	// (`role`), one HMGET per request beside the user's rate limit
	revocations: (userId: number) => `revoked:{user${userId}}`,
	otp: (phone: string) => `otp:{m${phone}}:code`,
	otpSends: (phone: string) => `otp:{m${phone}}:sends`,
	// community settings cache (connections work)
	settings: (communityId: number) => `settings:{c${communityId}}`,
	// the community's moderation settings as JSON (modules/settings/moderation.ts)
	moderationSettings: (communityId: number) => `settings:{c${communityId}}:moderation`,
	// connection feed (fan-out on write); `connLive` marks a feed kept up to date,
	// expiring after 7 days without a read (then fan-out skips it, next read rebuilds);
	// its value is the feed's version, moved by every change of the feed while live
	connFeed: (userId: number) => `feed:{u${userId}}:conn`,
	connLive: (userId: number) => `feed:{u${userId}}:conn:live`,
	// personalised feed: ranked candidates, recompute metadata and affinities
	persFeed: (userId: number) => `feed:{u${userId}}:pers`,
	persMeta: (userId: number) => `feed:{u${userId}}:pers:meta`,
	feedSeen: (userId: number) => `feed:{u${userId}}:seen`,
	// universal feed engine (timelines): ZSETs scored by created_at, all in the
	// community's slot so a feed read never crosses slots
	universalFeed: (communityId: number) => `feed:{c${communityId}}:universal`,
	topicFeed: (communityId: number, topicId: string) => `feed:{c${communityId}}:topic:${topicId}`,
	widgetFeed: (communityId: number, widgetId: string) =>
		`feed:{c${communityId}}:widget:${widgetId}`,
	// a stream of the posts placed in the universal feed, in the order placed (with what
	// ranking needs); personalised reads fold it in from where each viewer left off
	placements: (communityId: number) => `feed:{c${communityId}}:placed`,
	// bumped after every change a universal feed page shows (timelines/page-cache.ts)
	feedVersion: (communityId: number) => `feed:{c${communityId}}:version`,
	// set once the community's sets were built from Postgres; missing → rebuilt on read
	feedBuilt: (communityId: number) => `feed:{c${communityId}}:built`,
	feedBuilding: (communityId: number) => `feed:{c${communityId}}:building`,
	// post and user caches (JSON strings, read with one MGET), topic/widget catalog
	// ('' for the id gives the prefix: a script appends ids itself)
	postCache: (communityId: number, postId: string) => `post:{c${communityId}}:${postId}`,
	userCache: (communityId: number, userId: number | '') => `user:{c${communityId}}:${userId}`,
	// bumped by every writer of a cached post or user; a read-through fill that loaded
	// from Postgres before a bump is refused (same hash tag as the cache key)
	cacheGeneration: (cacheKey: string) => `gen:${cacheKey}`,
	catalog: (communityId: number) => `catalog:{c${communityId}}`,
	// per-viewer sets loaded lazily from Postgres (a sentinel member marks "loaded")
	// One set for both flags: members l<postId> (liked) and s<postId> (saved), so a page's
	// flags are one SMISMEMBER.
	viewerFlags: (userId: number) => `flags:{u${userId}}`,
	// set to a new random value by every write of the viewer's flags set: a kept page's
	// flags, as read under it, stand while it does (timelines/viewer-state.ts)
	viewerFlagsVersion: (userId: number) => `flags:{u${userId}}:version`,
	viewerBlocks: (userId: number) => `blocks:{u${userId}}`,
	// set while an import's rows are being written and its feeds not yet rebuilt (its own
	// tag: a rebuild drops every {c<id>} key, and this one must outlive a crashed rebuild)
	importPending: (communityId: number) => `import:{i${communityId}}:pending`,
	fanoutWake: () => 'fanout:{q}:wake',
	recomputeQueue: () => 'recompute:{q}:users',
	// webhook delivery schedule: due deliveries scored by due time, claimed ones by
	// lease deadline (one tag, so the claim script touches a single slot)
	webhookDue: () => 'webhooks:{wh}:due',
	webhookInflight: () => 'webhooks:{wh}:inflight',
	// a chatroom's newest page of conversations (one per page size), labelled inside
	// with the room version it was read at; served only when that label is not older
	// than chatVersion (conversations/newest.ts)
	chatNewest: (chatroomId: string, limit: number) => `chat:{r${chatroomId}}:newest:${limit}`,
	// what never changes about a room (community, secret, type) or `deleted`
	chatRoom: (chatroomId: string) => `chat:{r${chatroomId}}:room`,
	// the room's version: raised (never lowered) by every conversation write
	chatVersion: (chatroomId: string) => `chat:{r${chatroomId}}:version`,
	// per member, the conversation their read mark was last moved to by a page read
	chatReadMarks: (chatroomId: string) => `chat:{r${chatroomId}}:read`,
	// a user's notification feed copy (modules/notifications/store.ts), one tag per user so
	// one script reads or changes it: group ids by updated_at (capped), their rows as JSON,
	// unread ids (all of them), versions, recent tombstones, and the meta hash whose
	// absence means "rebuild from Postgres"
	activityMeta: (userId: number) => `act:{u${userId}}:meta`,
	activityFeed: (userId: number) => `act:{u${userId}}:feed`,
	activityRows: (userId: number) => `act:{u${userId}}:rows`,
	activityUnread: (userId: number) => `act:{u${userId}}:unread`,
	activityVersions: (userId: number) => `act:{u${userId}}:versions`,
	activityGone: (userId: number) => `act:{u${userId}}:gone`,
	// a page's Open Graph tags for link previews, per community and sha256 of the URL
	// (modules/link-previews), kept a day
	linkPreview: (communityId: number, urlHash: string) => `preview:{c${communityId}}:${urlHash}`,
	// push delivery schedule, the same two sets for pushes (members `<community>:<id>`)
	pushDue: () => 'push:{push}:due',
	pushInflight: () => 'push:{push}:inflight',
	// live updates (src/live): a scope's stream of recent events (XADD MAXLEN ~ 1000) and,
	// under the same name, its pub/sub channel; the tag is the scope's owner ({u<user>},
	// {r<room>}, {c<community>}), so one script appends and publishes in one slot
	liveStream: (tag: string, scope: string) => `live:{${tag}}:${scope}`,
	// a single-use 30-s WebSocket ticket (POST /live/ticket), its own tag
	liveTicket: (ticket: string) => `live:{t${ticket}}:ticket`,
}
