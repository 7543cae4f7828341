// The ceiling of every HTTP benchmark: a bare Elysia server in its own process, one
// constant route and nothing of the app (no hooks, no auth, no database). The harness
// starts it beside the app's server and loads it with the same client as the rows, in
// the same run, so every ratio a bench prints is over what this machine answers at
// best. Prints `listening <port>` when ready.
import { Elysia } from 'elysia'

const server = new Elysia().get('/bench/bare', () => 'ok').listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
