// The feed engine as modules see it: the only file under src/timelines that
// src/modules imports. Writes are told through `feedManager` (feed-manager.ts);
// reads are the feed pages and the hydration of post lists. Workers, jobs and
// operator scripts may use the engine's files directly.
export { noteFeedRead } from './activity'
export {
	type ConnectionFirstRead,
	readConnectionFeedJson,
	startConnectionRead,
} from './connection-feed'
export { type AfterCommit, type FormerPost, feedManager } from './feed-manager'
export type { FeedMark } from './feed-marks'
export { type Hydrated, hydratePosts, type VisibilityRules } from './hydrate'
export { viewsUnderVersion } from './kept-views'
export { bumpFeedVersion, feedVersion, type Kept, KeptPages, Renderings } from './page-cache'
export {
	type PersonalisedFirstRead,
	queueRecompute as queuePersonalisedRecompute,
	readPersonalisedJson,
	startPersonalisedRead,
} from './personalised'
export { getPosts, type SeenCounts } from './post-cache'
export {
	type FeedPost,
	type FeedUser,
	presentFeedPost,
	presentFeedUser,
	type Viewer,
} from './present'
export { rebuildCommunity } from './rebuild'
export {
	type EmbeddedPost,
	embedPosts,
	FlagPageWriter,
	type FlagsHole,
	type FlagTemplate,
	fillFlags,
	flagBits,
} from './render'
export {
	type CachedPost,
	type CachedUser,
	loadPosts,
	loadPostsLocked,
	type Visibility,
} from './repo'
export {
	type FeedQuery,
	type FirstRead,
	readUniversalJson,
	startUniversalRead,
} from './universal'
export { getUsers } from './user-cache'
export {
	blocksFrom,
	type ChatExclusions,
	type Exclusions,
	type FlagsHolder,
	flagsFrom,
	LOADED,
	type Reader,
	type ViewerFlags,
	viewerBlocks,
	viewerFlags,
	viewerSetKeys,
	viewerState,
} from './viewer-state'
