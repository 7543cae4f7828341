// The notification benchmark's server process: the real app alone (the ceiling is
// bare-server.ts, in its own process). Prints `listening <port>` when ready.
import { Elysia } from 'elysia'
import { app } from '../../src/app'

const server = new Elysia().use(app).listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
