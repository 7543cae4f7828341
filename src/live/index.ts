// The live engine's door (modules/live is its HTTP face; writers call publishLive after
// their commit). docs/live.md describes the protocol.
export {
	type Holder,
	LIVE_LIMITS,
	LiveConnection,
	type Sink,
	type Subscription,
} from './connection'
export { isStreamId } from './history'
export { subscriberName, useServer } from './hub'
export { type LiveEvent, publishLive, publishLiveMany, signalLive } from './publish'
export { connectionsOf, MAX_CONNECTIONS_PER_USER, register } from './registry'
export { type LiveChannel, type LiveScope, liveScopes, parseScope, userChannel } from './scopes'
