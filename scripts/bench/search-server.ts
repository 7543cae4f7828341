// The app server of bench:search, in its own process (the real app, nothing added).
import { app } from '../../src/app'

const server = app.listen({ port: 0 })
console.log(`listening ${server.server?.port}`)
