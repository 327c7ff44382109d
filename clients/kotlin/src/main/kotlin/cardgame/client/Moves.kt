package cardgame.client

import java.util.UUID
import kotlin.random.Random

/**
 * The Act notation that takes [action] (one of a view's legal actions): its `notation`; for an
 * action that chooses cards (`maxCards` > 0: an exchange, a discard, a pass of cards) its notation
 * followed by the chosen [cards], or by a random allowed choice of `action.cardsList` when
 * [cards] is null (as the Python client does). No game's words are known here: the view says them.
 */
public fun notationFor(action: LegalAction, cards: List<String>? = null, random: Random = Random.Default): String {
    if (action.maxCards > 0) {
        val chosen = cards ?: randomCards(action, random)
        return (listOf(action.notation) + chosen).joinToString(" ")
    }
    require(action.notation.isNotEmpty()) { "the action has no notation; take one of a view's legal actions" }
    return action.notation
}

/** A random allowed choice of a card-choosing action's cards (between minCards and maxCards of them). */
public fun randomCards(action: LegalAction, random: Random = Random.Default): List<String> {
    val count = if (action.maxCards > action.minCards) random.nextInt(action.minCards, action.maxCards + 1)
    else action.minCards
    return action.cardsList.shuffled(random).take(count)
}

/** A fresh idempotency key (a random UUID) for one logical mutating call; reuse it only to retry that call. */
public fun newRequestId(): String = UUID.randomUUID().toString()
