// The write benchmark's server: the real app and worker in one process (ROLE=all, as
// `npm start` runs); the ceiling is bare-server.ts, in its own process. Prints
// `listening <port>` when ready.
import { Elysia } from 'elysia'
import { app } from '../../src/app'
import { startWorker } from '../../src/worker'

await startWorker()
const server = new Elysia().use(app).listen({ port: 0 })
console.log(`listening ${server.server?.port}`)
