"""Small stand-ins for the benchmarks' servers, real HTTP on 127.0.0.1 in a thread, for the adapter tests:

- `MiniWebShop`: an `agentenv-webshop` server (ids in `env_idx`, reset by `session_id`, replies in `state`, actions
  at /available_actions) over a three-product store in WebShop's text mode; buying scores like WebShop does in
  spirit: 1.0 for the right product with the right option, 0.5 for the right product alone, 0 otherwise.
- `MiniRetriever`: a retrieval server with Search-R1's `/retrieve` API over a four-passage corpus, ranked by word overlap.
"""

from __future__ import annotations

from env_servers import ThreadServer

PRODUCTS = {
    "B01": ("Red ceramic mug, 12 oz", 15.0, ["red", "blue"]),
    "B02": ("Steel travel mug", 25.0, ["silver"]),
    "B03": ("Red wool scarf", 19.0, ["red"]),
}
GOALS = [("i need a red ceramic mug, color red, price lower than 20.00 dollars", "B01", "red")]


class MiniWebShop(ThreadServer):
    def __init__(self) -> None:
        super().__init__()
        self.envs: dict[int, dict] = {}

    def _page(self, env: dict) -> tuple[str, bool, list[str]]:
        goal = GOALS[env["session"] % len(GOALS)][0]
        head = f"WebShop [SEP] Instruction: [SEP] {goal}"
        if env["page"] == "search":
            return f"{head} [SEP] Search", True, []
        if env["page"] == "results":
            hits = [
                pid for pid, (title, _, _) in PRODUCTS.items() if set(env["query"].split()) & set(title.lower().split())
            ]
            listing = " [SEP] ".join(f"{pid} [SEP] {PRODUCTS[pid][0]} [SEP] ${PRODUCTS[pid][1]:.2f}" for pid in hits)
            return f"{head} [SEP] Back to Search [SEP] {listing}", False, ["back to search"] + [p.lower() for p in hits]
        title, price, options = PRODUCTS[env["item"]]
        text = (
            f"{head} [SEP] Back to Search [SEP] {title} [SEP] Price: ${price:.2f} [SEP] "
            + " [SEP] ".join(options)
            + " [SEP] Buy Now"
        )
        return text, False, ["back to search"] + options + ["buy now"]

    def answer(self, method, path, query, body):
        if path == "/create":
            env_id = len(self.envs)
            self.envs[env_id] = {"page": "search", "session": 0}
            return 200, env_id
        env_id = body["env_idx"] if body else int(query["env_idx"])
        env = self.envs[env_id]
        if path == "/reset":
            env.update(page="search", session=body["session_id"], query="", item=None, option=None)
            return 200, [None, None]
        if path == "/observation":
            return 200, self._page(env)[0]
        if path == "/instruction_text":
            return 200, "Instruction: " + GOALS[env["session"] % len(GOALS)][0]
        if path == "/available_actions":
            _, search_bar, clickables = self._page(env)
            return 200, {"has_search_bar": search_bar, "clickables": clickables}
        if path == "/close":
            return 200, {}
        action, reward, done = body["action"], 0.0, False
        _, search_bar, clickables = self._page(env)
        if action.startswith("search[") and search_bar:
            env.update(page="results", query=action[7:-1].lower())
        elif action.startswith("click[") and action[6:-1] in clickables:
            value = action[6:-1]
            if value == "back to search":
                env.update(page="search")
            elif value.upper() in PRODUCTS:
                env.update(page="item", item=value.upper())
            elif value == "buy now":
                _, want, option = GOALS[env["session"] % len(GOALS)]
                reward = (0.5 + 0.5 * (env["option"] == option)) if env["item"] == want else 0.0
                done = True
            else:
                env["option"] = value
        return 200, {
            "state": "Thank you for shopping with us!" if done else self._page(env)[0],
            "reward": reward,
            "done": done,
            "info": None,
        }


CORPUS = [
    "Paris\nParis is the capital and largest city of France.",
    "Berlin\nBerlin is the capital of Germany.",
    "Mount Everest\nMount Everest is Earth's highest mountain above sea level.",
    "The Nile\nThe Nile is a major north-flowing river in northeastern Africa.",
]


class MiniRetriever(ThreadServer):
    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.broken = broken

    def answer(self, method, path, query, body):
        if path != "/retrieve":
            return 404, {"detail": "Not Found"}
        if self.broken:
            return 200, {"results": "nothing"}
        results = []
        for text in body["queries"]:
            words = set(text.lower().split())
            ranked = sorted(CORPUS, key=lambda doc: -len(words & set(doc.lower().replace(".", "").split())))
            results.append(
                [
                    {"document": {"id": str(i), "contents": doc}, "score": 1.0 / (i + 1)}
                    for i, doc in enumerate(ranked[: body["topk"]])
                ]
            )
        return 200, {"result": results}
