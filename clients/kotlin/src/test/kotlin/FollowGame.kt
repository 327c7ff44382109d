import cardgame.client.GameClient
import cardgame.client.Protocol
import cardgame.client.Seat
import cardgame.client.isOver
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking

fun main(args: Array<String>): Unit = runBlocking {
    GameClient(args.firstOrNull() ?: "http://localhost:8080", protocol = Protocol.GRPC_WEB).use { lobby ->
        println("games: " + lobby.getCatalog().joinToString { "${it.name} (${it.seats} seats)" })
        val seats = listOf(Seat.human("me")) + (1..3).map { Seat.bot("bot $it", "random") }
        val game = lobby.createGame("hearts", seats, settings = mapOf("target" to 30))
        val me = lobby.withToken(game.tokens.getValue(0))
        var streamed = 0
        val following = launch { me.watchGame(game.gameId).collect { streamed++ } }  // ends after the game's end
        var view = me.getGame(game.gameId)
        while (!view.isOver) view = me.act(view, view.legalActionsList.random())     // cards to pass: chosen at random
        following.join()
        println("$streamed views streamed; version ${view.version}, phase ${view.phaseName}")
    }
}
