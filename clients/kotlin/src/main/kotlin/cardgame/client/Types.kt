// Short names for the generated messages the client's surface uses. protoc puts each message in
// the outer class of its file (the protos carry no java_* options: those are the client's choice),
// so `cardgame.v1.View.GameView` is `GameView` here.
package cardgame.client

/** The caller's view of a game: its hand, everything public, and its `legalActionsList`. */
public typealias GameView = cardgame.v1.View.GameView

/** One thing the caller may do now; send its `notation` with [GameClient.act]. */
public typealias LegalAction = cardgame.v1.View.LegalAction

/** Every completed hand's score, the totals and the winner. */
public typealias GetScoreResponse = cardgame.v1.GameServiceOuterClass.GetScoreResponse

/** One game of ListGames. */
public typealias GameSummary = cardgame.v1.Lifecycle.GameSummary

/** A page of a game's log (GetHistory). */
public typealias GetHistoryResponse = cardgame.v1.GameServiceOuterClass.GetHistoryResponse

/** The request of CreateGame, for fields [GameClient.createGame] takes no argument for. */
public typealias CreateGameRequest = cardgame.v1.GameServiceOuterClass.CreateGameRequest

/** One game the server plays, as GetCatalog describes it. */
public typealias GameDescription = cardgame.v1.Catalog.GameDescription

/** Rule options of any game (one case of its `variant` oneof per game's options message). */
public typealias RuleOptions = cardgame.v1.Options.RuleOptions

/** Who makes a seat's decisions. */
public typealias PlayerKind = cardgame.v1.Enums.PlayerKind

/** Where a game stands in its life (waiting, in play, finished). */
public typealias GameStatus = cardgame.v1.Enums.GameStatus

/** The gRPC / Connect status code of a failed call. */
public typealias Code = com.connectrpc.Code

/** Whether the game is over: finished in its lifecycle, or in its game-over phase. */
public val GameView.isOver: Boolean
    get() = status == GameStatus.GAME_STATUS_FINISHED || phase == cardgame.v1.Enums.Phase.PHASE_GAME_OVER
