import cardgame.client.GameClient
import cardgame.client.GameException
import cardgame.client.Seat
import cardgame.client.isOver
import kotlinx.coroutines.runBlocking

fun main(args: Array<String>): Unit = runBlocking {
    GameClient(args.firstOrNull() ?: "http://localhost:8080").use { lobby ->    // the HTTP port, Connect protocol
        val seats = listOf(Seat.human("Ann"), Seat.bot("West"), Seat.bot("North"), Seat.bot("East"))
        val game = lobby.createGame("buck-euchre", seats, firstDealer = 0)       // Ann deals first
        val ann = lobby.withToken(game.tokens.getValue(0))                       // Ann's seat token
        try {
            ann.act(game.gameId, "play 9C")                                      // no card is dealt yet
        } catch (e: GameException) {
            println("refused: ${e.code.codeName} ${e.reason}")                   // refused: failed_precondition WRONG_PHASE
        }
        var view = ann.getGame(game.gameId)
        while (!view.isOver) view = ann.act(view, view.legalActionsList.first()) // every move from the view's legal actions
        println("winner seats: ${lobby.getScore(game.gameId).winnerSeatsList}")
    }
}
