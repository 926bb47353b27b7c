"""A realistic fixture: a small Python library, ``shop``, as a developer would be handed it.

usage: python bench/workloads/make_project.py DIR

Writes about fifty files beneath ``DIR``: the package ``shop/`` (``models/``,
``api/``, ``utils/`` and ``services/`` subpackages, some ``__init__.py`` files
empty), a pytest suite in ``tests/``, Markdown pages in ``docs/``, settings in
``config/`` (JSON, YAML and TOML), shell and Python helpers in ``scripts/``,
and ``README.md``, ``pyproject.toml`` and ``LICENSE`` at the top. The Python
files vary as real code does: with and without module docstrings, classes and
methods, top-level functions of zero to four parameters, decorators, standard
library, absolute and relative imports, ``# TODO`` and ``# FIXME`` comments,
constants, a few lines over 100 characters, large files and tiny ones.

Every file's text is fixed below (the few generated parts draw from
``random.Random(7)`` in a fixed order), so every run writes the same bytes.
Tests (``tests/infer/understand``) generate it afresh in a temporary directory.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

#: The seed the generated parts are drawn from.
SEED = 7

FILES: dict[str, str] = {}


def add(path: str, text: str) -> None:
    """Record ``text`` (its leading newline dropped) as the content of ``path``."""
    FILES[path] = text[1:] if text.startswith("\n") else text


# --------------------------------------------------------------------------- top level

add("README.md", r'''
# shop

A small, dependency-light library for running an online shop: users, products,
carts and orders, a JSON API on top, and a handful of helpers for money, text
and dates. It grew out of the back office of a bookshop and is used in
production by two small stores.

## Installation

    pip install -e .

For development, install the extras as well:

    pip install -e ".[dev]"

## Quick start

```python
from shop.models.user import User
from shop.models.cart import Cart

user = User(email="ada@example.com", name="Ada")
cart = Cart(owner=user)
cart.add("SKU-1001", quantity=2)
print(cart.total())
```

## Layout

- `shop/models/`: the domain objects (users, products, carts, orders)
- `shop/api/`: request handlers, authentication and serializers
- `shop/utils/`: money, text, dates and caching helpers
- `shop/services/`: payment, inventory and email
- `tests/`: the pytest suite
- `docs/`: longer documentation
- `config/`: settings for each environment
- `scripts/`: deployment and maintenance scripts

## Running the tests

    pytest -q

## License

MIT, see `LICENSE`.
''')

add("pyproject.toml", r'''
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "shop"
version = "0.4.2"
description = "A small library for running an online shop"
readme = "README.md"
requires-python = ">=3.9"
license = {text = "MIT"}
authors = [{name = "Shop Maintainers", email = "dev@shop.example"}]
dependencies = [
    "requests>=2.31",
    "PyYAML>=6.0",
]

[project.optional-dependencies]
dev = ["pytest>=7", "ruff", "mypy"]

[project.scripts]
shop = "shop.cli:main"

[tool.setuptools.packages.find]
include = ["shop*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-ra"

[tool.ruff]
line-length = 100
target-version = "py39"
''')

add("LICENSE", r'''
MIT License

Copyright (c) 2024 Shop Maintainers

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
''')

# --------------------------------------------------------------------------- shop/

add("shop/__init__.py", r'''
"""shop: a small library for running an online shop."""

from shop.models.user import User
from shop.models.product import Product
from shop.models.order import Order
from shop.models.cart import Cart

__version__ = "0.4.2"
__all__ = ["User", "Product", "Order", "Cart", "__version__"]
''')

add("shop/config.py", r'''
"""Settings for the shop, read from config/settings.json and the environment."""

import json
import os
from pathlib import Path
from typing import Any, Dict, Optional

DEFAULT_CURRENCY = "EUR"
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
SESSION_TTL_SECONDS = 3600
CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"
ENV_PREFIX = "SHOP_"

_cache: Optional[Dict[str, Any]] = None


def load_settings(path: Optional[Path] = None) -> Dict[str, Any]:
    """Read the settings file and overlay SHOP_* environment variables."""
    global _cache
    if _cache is not None and path is None:
        return _cache
    path = path or CONFIG_DIR / "settings.json"
    with open(path, encoding="utf-8") as handle:
        settings = json.load(handle)
    for key, value in os.environ.items():
        if key.startswith(ENV_PREFIX):
            settings[key[len(ENV_PREFIX):].lower()] = value
    _cache = settings
    return settings


def get_setting(name: str, default: Any = None) -> Any:
    return load_settings().get(name, default)


def reset() -> None:
    # FIXME: the tests rely on this; find a cleaner way to isolate settings
    global _cache
    _cache = None
''')

add("shop/cli.py", r'''
import argparse
import sys

from shop import __version__
from shop.config import load_settings
from shop.services.inventory import Inventory


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shop", description="Shop command line tools")
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command")
    stock = sub.add_parser("stock", help="show stock levels")
    stock.add_argument("sku", nargs="*")
    sub.add_parser("settings", help="print the effective settings")
    return parser


def cmd_stock(args) -> int:
    inventory = Inventory.from_settings(load_settings())
    skus = args.sku or inventory.skus()
    for sku in skus:
        print(f"{sku}\t{inventory.level(sku)}")
    return 0


def cmd_settings(args) -> int:
    for key, value in sorted(load_settings().items()):
        print(f"{key} = {value}")
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "stock":
        return cmd_stock(args)
    if args.command == "settings":
        return cmd_settings(args)
    build_parser().print_help()
    return 1


if __name__ == "__main__":
    sys.exit(main())
''')

# --------------------------------------------------------------------------- shop/models/

add("shop/models/__init__.py", r'''
"""Domain models."""

from .base import Model
from .user import Address, User
from .product import Catalogue, Product
from .cart import Cart, CartLine
from .order import Order, OrderStatus
''')

add("shop/models/base.py", r'''
"""A tiny base class for models: ids, equality and dict round-trips."""

import itertools
import uuid
from dataclasses import asdict, fields
from typing import Any, Dict, Type, TypeVar

T = TypeVar("T", bound="Model")

_counter = itertools.count(1)


def new_id(prefix: str = "") -> str:
    """A short unique id, optionally with a prefix."""
    return f"{prefix}{uuid.uuid4().hex[:12]}"


class Model:
    """Base class of every model."""

    def to_dict(self) -> Dict[str, Any]:
        """The model as a plain dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls: Type[T], data: Dict[str, Any]) -> T:
        """Build a model from a dict, ignoring unknown keys."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(getattr(self, "id", next(_counter)))
''')

add("shop/models/user.py", r'''
"""Users and their addresses."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import List, Optional

from .base import Model, new_id

EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)


@dataclass
class Address(Model):
    street: str
    city: str
    postcode: str
    country: str = "NL"

    def one_line(self) -> str:
        return f"{self.street}, {self.postcode} {self.city}, {self.country}"


@dataclass(eq=False)
class User(Model):
    """A customer or a member of staff."""

    email: str
    name: str
    id: str = field(default_factory=lambda: new_id("u_"))
    is_staff: bool = False
    created_at: datetime = field(default_factory=datetime.utcnow)
    addresses: List[Address] = field(default_factory=list)

    def __post_init__(self):
        if not EMAIL_PATTERN.match(self.email):
            raise ValueError(f"not an email address: {self.email!r}")
        self.email = self.email.lower()

    def display_name(self) -> str:
        """The name to show in the UI."""
        return self.name or self.email.split("@")[0]

    def default_address(self) -> Optional[Address]:
        # TODO: let users pick a default instead of taking the first one
        return self.addresses[0] if self.addresses else None

    def add_address(self, street: str, city: str, postcode: str, country: str = "NL") -> Address:
        address = Address(street=street, city=city, postcode=postcode, country=country)
        self.addresses.append(address)
        return address

    @property
    def domain(self) -> str:
        return self.email.rsplit("@", 1)[1]
''')

add("shop/models/product.py", r'''
"""Products and the catalogue they live in."""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Dict, List, Optional

from shop.models.base import Model, new_id
from shop.utils.money import Money
from shop.utils.text import slugify

CATEGORIES = ("books", "games", "garden", "kitchen", "toys")


@dataclass(eq=False)
class Product(Model):
    """Something we sell."""

    sku: str
    title: str
    price: Money
    category: str = "books"
    tags: List[str] = field(default_factory=list)
    id: str = field(default_factory=lambda: new_id("p_"))

    @property
    def slug(self) -> str:
        return slugify(self.title)

    def discounted(self, percent: Decimal) -> Money:
        """The price after taking ``percent`` off."""
        return self.price * (Decimal(100) - percent) / Decimal(100)

    def matches(self, query: str) -> bool:
        query = query.lower()
        return query in self.title.lower() or any(query == tag for tag in self.tags)


class Catalogue:
    """An in-memory catalogue of products, indexed by sku."""

    def __init__(self, products=()):
        self._by_sku: Dict[str, Product] = {}
        for product in products:
            self.add(product)

    def add(self, product: Product) -> None:
        if product.sku in self._by_sku:
            raise KeyError(f"duplicate sku {product.sku}")
        self._by_sku[product.sku] = product

    def get(self, sku: str) -> Product:
        return self._by_sku[sku]

    def search(self, query: str, category: Optional[str] = None) -> List[Product]:
        # FIXME: linear scan; fine for a few thousand products, not for more
        found = [p for p in self._by_sku.values() if p.matches(query)]
        if category:
            found = [p for p in found if p.category == category]
        return sorted(found, key=lambda p: p.title)

    def __len__(self) -> int:
        return len(self._by_sku)
''')

add("shop/models/cart.py", r'''
from dataclasses import dataclass, field
from typing import Dict, Iterator, Optional

from ..utils.money import Money
from .product import Catalogue
from .user import User


@dataclass
class CartLine:
    sku: str
    quantity: int
    unit_price: Money

    def subtotal(self) -> Money:
        return self.unit_price * self.quantity


@dataclass
class Cart:
    owner: User
    lines: Dict[str, CartLine] = field(default_factory=dict)
    currency: str = "EUR"

    def add(self, sku: str, quantity: int = 1, catalogue: Optional[Catalogue] = None) -> CartLine:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if sku in self.lines:
            self.lines[sku].quantity += quantity
            return self.lines[sku]
        price = catalogue.get(sku).price if catalogue else Money.zero(self.currency)
        line = self.lines[sku] = CartLine(sku, quantity, price)
        return line

    def remove(self, sku: str, quantity: Optional[int] = None) -> None:
        if sku not in self.lines:
            return
        if quantity is None or quantity >= self.lines[sku].quantity:
            del self.lines[sku]
        else:
            self.lines[sku].quantity -= quantity

    def clear(self) -> None:
        self.lines.clear()

    def total(self) -> Money:
        total = Money.zero(self.currency)
        for line in self.lines.values():
            total = total + line.subtotal()
        return total

    def is_empty(self) -> bool:
        return not self.lines

    def __iter__(self) -> Iterator[CartLine]:
        return iter(self.lines.values())

    def __len__(self) -> int:
        return sum(line.quantity for line in self.lines.values())
''')

add("shop/models/order.py", r'''
"""Orders: what a customer bought, and where it is on its way to them.

An order is created from a cart at checkout and then moves through the states
of ``OrderStatus``; ``Order.transition`` refuses moves the table does not allow.
"""

import enum
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Dict, List, Optional

from shop.models.base import Model, new_id
from shop.models.cart import Cart
from shop.models.user import Address, User
from shop.utils.dates import business_days_after, utcnow
from shop.utils.money import Money

log = logging.getLogger(__name__)

FREE_SHIPPING_THRESHOLD = Money.parse("50.00 EUR")
SHIPPING_FEE = Money.parse("4.95 EUR")
VAT_RATE = 21
DELIVERY_DAYS = 2


class OrderStatus(enum.Enum):
    NEW = "new"
    PAID = "paid"
    PACKED = "packed"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"

    @property
    def is_final(self) -> bool:
        return self in (OrderStatus.DELIVERED, OrderStatus.CANCELLED, OrderStatus.REFUNDED)


ALLOWED = {
    OrderStatus.NEW: {OrderStatus.PAID, OrderStatus.CANCELLED},
    OrderStatus.PAID: {OrderStatus.PACKED, OrderStatus.CANCELLED, OrderStatus.REFUNDED},
    OrderStatus.PACKED: {OrderStatus.SHIPPED, OrderStatus.REFUNDED},
    OrderStatus.SHIPPED: {OrderStatus.DELIVERED, OrderStatus.REFUNDED},
    OrderStatus.DELIVERED: {OrderStatus.REFUNDED},
    OrderStatus.CANCELLED: set(),
    OrderStatus.REFUNDED: set(),
}


class InvalidTransition(Exception):
    """Raised when an order is asked to move to a state it cannot reach."""


@dataclass
class OrderLine:
    sku: str
    title: str
    quantity: int
    unit_price: Money

    @property
    def subtotal(self) -> Money:
        return self.unit_price * self.quantity


@dataclass(eq=False)
class Order(Model):
    """A placed order."""

    customer: User
    lines: List[OrderLine]
    shipping_address: Address
    id: str = field(default_factory=lambda: new_id("o_"))
    status: OrderStatus = OrderStatus.NEW
    placed_at: datetime = field(default_factory=utcnow)
    history: List[Dict[str, str]] = field(default_factory=list)
    tracking_code: Optional[str] = None

    @classmethod
    def from_cart(cls, cart: Cart, address: Address, titles: Dict[str, str]) -> "Order":
        """Freeze the cart into an order; ``titles`` maps each sku to the product title."""
        if cart.is_empty():
            raise ValueError("cannot place an order for an empty cart")
        lines = [
            OrderLine(line.sku, titles.get(line.sku, line.sku), line.quantity, line.unit_price)
            for line in cart
        ]
        return cls(customer=cart.owner, lines=lines, shipping_address=address)

    def items_total(self) -> Money:
        total = Money.zero(self.lines[0].unit_price.currency)
        for line in self.lines:
            total = total + line.subtotal
        return total

    def shipping(self) -> Money:
        """Shipping is free above the threshold."""
        if self.items_total() >= FREE_SHIPPING_THRESHOLD:
            return Money.zero(SHIPPING_FEE.currency)
        return SHIPPING_FEE

    def vat(self) -> Money:
        # TODO: VAT rates differ per country; this assumes the Dutch rate everywhere
        return self.items_total() * VAT_RATE / (100 + VAT_RATE)

    def grand_total(self) -> Money:
        return self.items_total() + self.shipping()

    def transition(self, new_status: OrderStatus, note: str = "") -> None:
        """Move to ``new_status``, recording the move in ``history``."""
        if new_status not in ALLOWED[self.status]:
            raise InvalidTransition(f"{self.status.value} -> {new_status.value} is not allowed for order {self.id}")
        log.info("order %s: %s -> %s", self.id, self.status.value, new_status.value)
        self.history.append({"from": self.status.value, "to": new_status.value, "at": utcnow().isoformat(), "note": note})
        self.status = new_status

    def pay(self, reference: str) -> None:
        self.transition(OrderStatus.PAID, note=f"payment {reference}")

    def ship(self, tracking_code: str) -> None:
        self.tracking_code = tracking_code
        self.transition(OrderStatus.SHIPPED, note=tracking_code)

    def cancel(self, reason: str = "customer request") -> None:
        # FIXME: cancelling a paid order should trigger a refund, not just change the state
        self.transition(OrderStatus.CANCELLED, note=reason)

    def expected_delivery(self) -> Optional[datetime]:
        """When the parcel should arrive, if it has shipped."""
        if self.status is not OrderStatus.SHIPPED:
            return None
        shipped = [h for h in self.history if h["to"] == OrderStatus.SHIPPED.value]
        # TODO: ask the carrier instead of guessing from the shipping date
        return business_days_after(datetime.fromisoformat(shipped[-1]["at"]), DELIVERY_DAYS)

    def is_late(self, now: Optional[datetime] = None) -> bool:
        expected = self.expected_delivery()
        return expected is not None and (now or utcnow()) > expected + timedelta(days=1)

    def summary(self) -> str:
        count = sum(line.quantity for line in self.lines)
        return f"Order {self.id}: {count} item(s), {self.grand_total()} ({self.status.value})"


def orders_for(customer: User, orders: List[Order]) -> List[Order]:
    """The customer's orders, newest first."""
    mine = [order for order in orders if order.customer.id == customer.id]
    return sorted(mine, key=lambda order: order.placed_at, reverse=True)


def revenue(orders: List[Order], *, include_refunded: bool = False) -> Money:
    total = Money.zero("EUR")
    for order in orders:
        if order.status is OrderStatus.REFUNDED and not include_refunded:
            continue
        if order.status is OrderStatus.CANCELLED:
            continue
        total = total + order.grand_total()
    return total
''')

# --------------------------------------------------------------------------- shop/api/

add("shop/api/__init__.py", "")

add("shop/api/errors.py", r'''
"""Errors the API turns into HTTP responses."""

from typing import Any, Dict, Optional


class ApiError(Exception):
    """Base class: an error with an HTTP status and a machine-readable code."""

    status = 500
    code = "internal_error"

    def __init__(self, message: str = "", details: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.message = message or self.code.replace("_", " ")
        self.details = details or {}

    def to_body(self) -> Dict[str, Any]:
        body = {"error": self.code, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body


class ValidationError(ApiError):
    status = 400
    code = "invalid_request"


class AuthenticationError(ApiError):
    status = 401
    code = "not_authenticated"


class PermissionDeniedError(ApiError):
    status = 403
    code = "permission_denied"


class NotFoundError(ApiError):
    status = 404
    code = "not_found"


class ConflictError(ApiError):
    status = 409
    code = "conflict"


class RateLimitedError(ApiError):
    """Too many requests; ``retry_after`` is in seconds."""

    status = 429
    code = "rate_limited"

    def __init__(self, retry_after: int = 60):
        super().__init__(f"retry after {retry_after} seconds", {"retry_after": retry_after})
        self.retry_after = retry_after
''')

add("shop/api/pagination.py", r'''
from typing import Any, Dict, Sequence

from shop.config import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE


def paginate(items: Sequence[Any], page: int = 1, per_page: int = DEFAULT_PAGE_SIZE) -> Dict[str, Any]:
    per_page = max(1, min(per_page, MAX_PAGE_SIZE))
    pages = max(1, -(-len(items) // per_page))
    page = max(1, min(page, pages))
    start = (page - 1) * per_page
    return {"items": list(items[start:start + per_page]), "page": page, "pages": pages, "total": len(items)}
''')

add("shop/api/auth.py", r'''
"""Bearer tokens and the decorators that guard the routes."""

import base64
import functools
import hashlib
import hmac
import os
import time
from typing import Callable, Optional

from shop.api.errors import AuthenticationError, PermissionDeniedError
from shop.config import SESSION_TTL_SECONDS, get_setting

TOKEN_VERSION = "v1"


def _secret() -> bytes:
    secret = get_setting("secret_key") or os.environ.get("SHOP_SECRET_KEY")
    if not secret:
        raise RuntimeError("no secret key configured")
    return secret.encode()


def issue_token(user_id: str, now: Optional[float] = None) -> str:
    """A signed token for ``user_id`` that expires after the session TTL."""
    expires = int((now or time.time()) + SESSION_TTL_SECONDS)
    payload = f"{TOKEN_VERSION}:{user_id}:{expires}"
    signature = hmac.new(_secret(), payload.encode(), hashlib.sha256).hexdigest()
    return base64.urlsafe_b64encode(f"{payload}:{signature}".encode()).decode()


def verify_token(token: str, now: Optional[float] = None) -> str:
    """The user id in ``token``; raises ``AuthenticationError`` if it is forged or expired."""
    try:
        version, user_id, expires, signature = base64.urlsafe_b64decode(token).decode().split(":")
    except Exception:
        raise AuthenticationError("malformed token")
    payload = f"{version}:{user_id}:{expires}"
    expected = hmac.new(_secret(), payload.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature, expected):
        raise AuthenticationError("bad signature")
    if int(expires) < (now or time.time()):
        raise AuthenticationError("token expired")
    return user_id


def bearer(headers: dict) -> Optional[str]:
    value = headers.get("Authorization", "")
    return value[7:] if value.startswith("Bearer ") else None


def require_auth(handler: Callable) -> Callable:
    """Reject requests without a valid bearer token; sets ``request.user``."""

    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        from shop.api.routes import USERS

        token = bearer(request.headers)
        if token is None:
            raise AuthenticationError()
        request.user = USERS.get(verify_token(token))
        if request.user is None:
            raise AuthenticationError("unknown user")
        return handler(request, *args, **kwargs)

    return wrapper


def require_staff(handler: Callable) -> Callable:
    @require_auth
    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDeniedError("staff only")
        return handler(request, *args, **kwargs)

    return wrapper
''')

add("shop/api/serializers.py", r'''
"""Turn models into the JSON bodies the API sends."""

from typing import Any, Dict

from ..models.order import Order
from ..models.product import Product
from ..models.user import User
from ..utils.dates import isoformat


def serialize_user(user: User, private: bool = False) -> Dict[str, Any]:
    body = {"id": user.id, "name": user.display_name()}
    if private:
        body["email"] = user.email
        body["addresses"] = [address.one_line() for address in user.addresses]
    return body


def serialize_product(product: Product) -> Dict[str, Any]:
    return {
        "sku": product.sku,
        "title": product.title,
        "slug": product.slug,
        "price": str(product.price),
        "category": product.category,
        "tags": list(product.tags),
    }


def serialize_order(order: Order) -> Dict[str, Any]:
    return {
        "id": order.id,
        "status": order.status.value,
        "placed_at": isoformat(order.placed_at),
        "lines": [
            {"sku": line.sku, "title": line.title, "quantity": line.quantity, "subtotal": str(line.subtotal)}
            for line in order.lines
        ],
        "shipping": str(order.shipping()),
        "total": str(order.grand_total()),
        "tracking_code": order.tracking_code,
    }
''')

add("shop/api/routes.py", r'''
"""HTTP routes for the shop API.

Each handler takes a ``Request`` (and the path parameters) and returns a
``(status, body)`` pair; the ``route`` decorator registers it in ``ROUTES``
and ``dispatch`` finds the handler for a request.
"""

import json
import logging
import re
from typing import Any, Callable, Dict, Tuple

from shop.api.auth import issue_token, require_auth, require_staff
from shop.api.errors import ApiError, ConflictError, NotFoundError, ValidationError
from shop.api.pagination import paginate
from shop.api.serializers import serialize_order, serialize_product, serialize_user
from shop.models.cart import Cart
from shop.models.order import InvalidTransition, Order, OrderStatus, orders_for
from shop.models.product import Catalogue, Product
from shop.models.user import User
from shop.services.email import send_order_confirmation
from shop.services.inventory import Inventory, OutOfStock
from shop.services.payment import PaymentFailed, get_provider
from shop.utils.money import Money

log = logging.getLogger(__name__)

Handler = Callable[..., Tuple[int, Any]]
ROUTES: Dict[Tuple[str, str], Handler] = {}

# In-memory stores; the real deployment swaps these for the database layer.
USERS: Dict[str, User] = {}
ORDERS: Dict[str, Order] = {}
CARTS: Dict[str, Cart] = {}
CATALOGUE = Catalogue()
INVENTORY = Inventory()


class Request:
    """The parts of an HTTP request the handlers look at."""

    def __init__(self, method: str, path: str, body: bytes = b"", headers=None):
        self.method = method
        self.path = path
        self.body = body
        self.headers = headers or {}
        self.user = None
        self.params: Dict[str, str] = {}

    def json(self) -> Dict[str, Any]:
        try:
            return json.loads(self.body or b"{}")
        except json.JSONDecodeError as exc:
            raise ValidationError(f"invalid JSON: {exc}") from exc


def route(method: str, path: str):
    """Register the decorated handler for ``method`` and ``path``."""

    def decorator(handler: Handler) -> Handler:
        ROUTES[(method, path)] = handler
        return handler

    return decorator


def dispatch(request: Request) -> Tuple[int, Any]:
    """Find the handler for ``request`` and call it, turning ``ApiError`` into a response."""
    for (method, pattern), handler in ROUTES.items():
        if method != request.method:
            continue
        regex = "^" + re.sub(r"<(\w+)>", r"(?P<\1>[^/]+)", pattern) + "$"
        match = re.match(regex, request.path)
        if match:
            try:
                return handler(request, **match.groupdict())
            except ApiError as error:
                return error.status, error.to_body()
    return 404, {"error": "not_found", "message": f"no route for {request.method} {request.path}"}


def _cart_for(user: User) -> Cart:
    if user.id not in CARTS:
        CARTS[user.id] = Cart(owner=user)
    return CARTS[user.id]


@route("GET", "/health")
def health(request: Request):
    return 200, {"status": "ok", "routes": len(ROUTES)}


@route("POST", "/users")
def register_user(request: Request):
    data = request.json()
    try:
        user = User(email=data.get("email", ""), name=data.get("name", ""))
    except ValueError as exc:
        raise ValidationError(str(exc))
    if any(existing.email == user.email for existing in USERS.values()):
        raise ConflictError("email already registered")
    USERS[user.id] = user
    return 201, {"user": serialize_user(user, private=True), "token": issue_token(user.id)}


@route("GET", "/me")
@require_auth
def get_me(request: Request):
    return 200, serialize_user(request.user, private=True)


@route("GET", "/products")
def list_products(request: Request):
    query = request.params.get("q", "")
    category = request.params.get("category")
    page = int(request.params.get("page", 1))
    products = CATALOGUE.search(query, category=category)
    return 200, paginate([serialize_product(p) for p in products], page=page)


@route("GET", "/products/<sku>")
def get_product(request: Request, sku: str):
    try:
        product = CATALOGUE.get(sku)
    except KeyError:
        raise NotFoundError(f"no product {sku}")
    body = serialize_product(product)
    body["in_stock"] = INVENTORY.level(sku) > 0
    return 200, body


@route("POST", "/products")
@require_staff
def create_product(request: Request):
    data = request.json()
    missing = [key for key in ("sku", "title", "price") if key not in data]
    if missing:
        raise ValidationError("missing fields: " + ", ".join(missing))
    product = Product(sku=data["sku"], title=data["title"], price=Money.parse(data["price"]))
    try:
        CATALOGUE.add(product)
    except KeyError as exc:
        raise ConflictError(str(exc))
    return 201, serialize_product(product)


@route("PUT", "/products/<sku>/stock")
@require_staff
def update_stock(request: Request, sku: str):
    level = request.json().get("level")
    if not isinstance(level, int) or level < 0:
        raise ValidationError("level must be a non-negative integer")
    INVENTORY.set_level(sku, level)
    return 200, {"sku": sku, "level": level}


@route("GET", "/cart")
@require_auth
def get_cart(request: Request):
    cart = _cart_for(request.user)
    lines = [{"sku": line.sku, "quantity": line.quantity, "subtotal": str(line.subtotal())} for line in cart]
    return 200, {"lines": lines, "total": str(cart.total())}


@route("POST", "/cart/items")
@require_auth
def add_to_cart(request: Request):
    data = request.json()
    sku, quantity = data.get("sku"), int(data.get("quantity", 1))
    if sku is None:
        raise ValidationError("sku is required")
    if INVENTORY.level(sku) < quantity:
        raise ConflictError(f"only {INVENTORY.level(sku)} of {sku} left")
    _cart_for(request.user).add(sku, quantity, catalogue=CATALOGUE)
    return get_cart(request)


@route("DELETE", "/cart/items/<sku>")
@require_auth
def remove_from_cart(request: Request, sku: str):
    _cart_for(request.user).remove(sku)
    return get_cart(request)


@route("POST", "/checkout")
@require_auth
def checkout(request: Request):
    user = request.user
    cart = _cart_for(user)
    address = user.default_address()
    if address is None:
        raise ValidationError("add an address before checking out")
    titles = {line.sku: CATALOGUE.get(line.sku).title for line in cart}
    order = Order.from_cart(cart, address, titles)
    try:
        INVENTORY.reserve({line.sku: line.quantity for line in order.lines})
    except OutOfStock as exc:
        raise ConflictError(str(exc))
    try:
        reference = get_provider().charge(order.grand_total(), description=f"Order {order.id}")
    except PaymentFailed as exc:
        INVENTORY.release({line.sku: line.quantity for line in order.lines})
        log.warning("payment failed for order %s: %s (user %s, total %s, %d lines)", order.id, exc, user.id, order.grand_total(), len(order.lines))
        raise ValidationError("payment failed")
    order.pay(reference)
    ORDERS[order.id] = order
    cart.clear()
    # TODO: send the confirmation from a background job instead of inline
    send_order_confirmation(order)
    return 201, serialize_order(order)


@route("GET", "/orders")
@require_auth
def list_orders(request: Request):
    orders = orders_for(request.user, list(ORDERS.values()))
    return 200, paginate([serialize_order(order) for order in orders])


@route("GET", "/orders/<order_id>")
@require_auth
def get_order(request: Request, order_id: str):
    order = ORDERS.get(order_id)
    if order is None or (order.customer.id != request.user.id and not request.user.is_staff):
        raise NotFoundError(f"no order {order_id}")
    return 200, serialize_order(order)


@route("POST", "/orders/<order_id>/cancel")
@require_auth
def cancel_order(request: Request, order_id: str):
    order = ORDERS.get(order_id)
    if order is None or order.customer.id != request.user.id:
        raise NotFoundError(f"no order {order_id}")
    try:
        order.cancel()
    except InvalidTransition as exc:
        raise ConflictError(str(exc))
    return 200, serialize_order(order)


@route("POST", "/orders/<order_id>/ship")
@require_staff
def ship_order(request: Request, order_id: str):
    order = ORDERS.get(order_id)
    if order is None:
        raise NotFoundError(f"no order {order_id}")
    tracking_code = request.json().get("tracking_code")
    if not tracking_code:
        raise ValidationError("tracking_code is required")
    if order.status is OrderStatus.PAID:
        order.transition(OrderStatus.PACKED, note="packed at dispatch")
    order.ship(tracking_code)
    return 200, serialize_order(order)
''')

# --------------------------------------------------------------------------- shop/utils/

add("shop/utils/__init__.py", "")

add("shop/utils/money.py", r'''
"""Money amounts with a currency, kept as Decimal cents-exact values."""

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Union

SYMBOLS = {"EUR": "\u20ac", "USD": "$", "GBP": "\u00a3"}
CENT = Decimal("0.01")

Number = Union[int, Decimal]


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str = "EUR"

    @classmethod
    def zero(cls, currency: str = "EUR") -> "Money":
        return cls(Decimal(0), currency)

    @classmethod
    def parse(cls, text: str) -> "Money":
        """Parse ``"12.50 EUR"`` (the currency defaults to EUR)."""
        parts = text.split()
        currency = parts[1] if len(parts) > 1 else "EUR"
        return cls(quantize(Decimal(parts[0])), currency)

    def _check(self, other: "Money") -> None:
        if self.currency != other.currency:
            raise ValueError(f"cannot mix {self.currency} and {other.currency}")

    def __add__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: Number) -> "Money":
        return Money(quantize(self.amount * Decimal(factor)), self.currency)

    def __truediv__(self, divisor: Number) -> "Money":
        return Money(quantize(self.amount / Decimal(divisor)), self.currency)

    def __ge__(self, other: "Money") -> bool:
        self._check(other)
        return self.amount >= other.amount

    def __str__(self) -> str:
        return format_money(self)


def quantize(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def format_money(money: Money, with_symbol: bool = True) -> str:
    """``\u20ac12.50`` or ``12.50 EUR``."""
    if with_symbol and money.currency in SYMBOLS:
        return f"{SYMBOLS[money.currency]}{money.amount:,.2f}"
    return f"{money.amount:,.2f} {money.currency}"


def split_evenly(money: Money, parts: int) -> list:
    """Split ``money`` into ``parts`` amounts that add up exactly; the first ones get the odd cents."""
    if parts <= 0:
        raise ValueError("parts must be positive")
    cents = int(money.amount * 100)
    base, rest = divmod(cents, parts)
    return [Money(Decimal(base + (1 if i < rest else 0)) / 100, money.currency) for i in range(parts)]
''')

add("shop/utils/text.py", r'''
import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    normalized = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NON_WORD.sub("-", normalized.lower()).strip("-")


def truncate(text: str, width: int = 80, suffix: str = "...") -> str:
    if len(text) <= width:
        return text
    return text[: width - len(suffix)].rstrip() + suffix


def normalize_whitespace(text):
    return " ".join(text.split())


def pluralize(word: str, count: int) -> str:
    if count == 1:
        return word
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def join_words(*words: str, sep: str = ", ", last: str = " and ") -> str:
    if len(words) <= 1:
        return "".join(words)
    return sep.join(words[:-1]) + last + words[-1]
''')

add("shop/utils/dates.py", r'''
"""Date helpers: UTC now, ISO formatting and business days."""

from datetime import date, datetime, timedelta, timezone
from typing import Iterable, Optional

# TODO: load public holidays per country instead of this hard-coded Dutch list
HOLIDAYS = {
    date(2024, 1, 1), date(2024, 4, 1), date(2024, 4, 27), date(2024, 5, 9),
    date(2024, 5, 20), date(2024, 12, 25), date(2024, 12, 26),
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def isoformat(moment: Optional[datetime]) -> Optional[str]:
    """ISO 8601 with a ``Z`` for UTC, or None."""
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_business_day(day: date, holidays: Iterable[date] = HOLIDAYS) -> bool:
    return day.weekday() < 5 and day not in set(holidays)


def business_days_after(start: datetime, days: int) -> datetime:
    """The moment ``days`` business days after ``start``."""
    current = start
    remaining = days
    while remaining > 0:
        current += timedelta(days=1)
        if is_business_day(current.date()):
            remaining -= 1
    return current


def days_between(first: date, second: date) -> int:
    return abs((second - first).days)
''')

add("shop/utils/cache.py", r'''
"""A small TTL cache and a decorator that memoizes functions with it."""

import functools
import threading
import time
from typing import Any, Callable, Dict, Hashable, Optional, Tuple


class TTLCache:
    """A dict whose entries expire ``ttl`` seconds after they were set."""

    def __init__(self, ttl: float = 60.0, maxsize: int = 1024):
        self.ttl = ttl
        self.maxsize = maxsize
        self._data: Dict[Hashable, Tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            entry = self._data.get(key)
            if entry is None or entry[0] < time.monotonic():
                self._data.pop(key, None)
                return default
            return entry[1]

    def set(self, key: Hashable, value: Any) -> None:
        with self._lock:
            if len(self._data) >= self.maxsize:
                # FIXME: evicts an arbitrary entry; should evict the oldest
                self._data.pop(next(iter(self._data)))
            self._data[key] = (time.monotonic() + self.ttl, value)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


def memoize(ttl: float = 60.0, cache: Optional[TTLCache] = None) -> Callable:
    """Cache a function's results for ``ttl`` seconds, keyed by its arguments."""
    store = cache or TTLCache(ttl)

    def decorator(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            key = (func.__name__, args, tuple(sorted(kwargs.items())))
            missing = object()
            value = store.get(key, missing)
            if value is missing:
                value = func(*args, **kwargs)
                store.set(key, value)
            return value

        wrapper.cache = store
        return wrapper

    return decorator
''')

# --------------------------------------------------------------------------- shop/services/

add("shop/services/__init__.py", r'''
"""Services that talk to the outside world: payments, stock and email."""
''')

add("shop/services/inventory.py", r'''
"""Stock levels and reservations."""

import threading
from collections import defaultdict
from typing import Dict, List


class OutOfStock(Exception):
    pass


class Inventory:
    """Stock per sku; ``reserve`` takes stock for an order all at once or not at all."""

    def __init__(self, levels: Dict[str, int] = None):
        self._levels = defaultdict(int, levels or {})
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: dict) -> "Inventory":
        return cls(settings.get("initial_stock", {}))

    def skus(self) -> List[str]:
        return sorted(self._levels)

    def level(self, sku: str) -> int:
        return self._levels[sku]

    def set_level(self, sku: str, level: int) -> None:
        with self._lock:
            self._levels[sku] = level

    def reserve(self, quantities: Dict[str, int]) -> None:
        with self._lock:
            short = [sku for sku, qty in quantities.items() if self._levels[sku] < qty]
            if short:
                raise OutOfStock("not enough stock for " + ", ".join(sorted(short)))
            for sku, qty in quantities.items():
                self._levels[sku] -= qty

    def release(self, quantities: Dict[str, int]) -> None:
        with self._lock:
            for sku, qty in quantities.items():
                self._levels[sku] += qty

    def low_stock(self, threshold: int = 5) -> List[str]:
        # TODO: per-product thresholds
        return [sku for sku, level in sorted(self._levels.items()) if level < threshold]
''')

add("shop/services/payment.py", r'''
"""Payment providers behind one small interface."""

import abc
import logging
import uuid
from typing import Dict, Optional

import requests

from shop.config import get_setting
from shop.utils.money import Money

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10


class PaymentFailed(Exception):
    """The provider declined or could not be reached."""


class PaymentProvider(abc.ABC):
    name = "abstract"

    @abc.abstractmethod
    def charge(self, amount: Money, description: str = "") -> str:
        """Charge ``amount``; the provider's payment reference."""

    @abc.abstractmethod
    def refund(self, reference: str, amount: Optional[Money] = None) -> None:
        """Refund all of the payment, or ``amount`` of it."""


class HttpProvider(PaymentProvider):
    name = "http"

    def __init__(self, base_url: str, api_key: str, timeout: int = DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def _post(self, path: str, payload: Dict) -> Dict:
        try:
            response = requests.post(
                self.base_url + path,
                json=payload,
                headers={"Authorization": f"Bearer {self.api_key}"},
                timeout=self.timeout,
            )
        except requests.RequestException as exc:
            raise PaymentFailed(f"provider unreachable: {exc}") from exc
        if response.status_code >= 400:
            raise PaymentFailed(f"provider said {response.status_code}: {response.text[:200]}")
        return response.json()

    def charge(self, amount: Money, description: str = "") -> str:
        cents = int(amount.amount * 100)
        body = self._post("/charges", {"amount": cents, "currency": amount.currency, "description": description})
        return body["id"]

    def refund(self, reference: str, amount: Optional[Money] = None) -> None:
        payload = {"charge": reference}
        if amount is not None:
            payload["amount"] = int(amount.amount * 100)
        # FIXME: retry on timeouts; a lost refund request is only noticed at reconciliation
        self._post("/refunds", payload)


class FakeProvider(PaymentProvider):
    """Accepts every charge; used in development and the tests."""

    name = "fake"

    def __init__(self):
        self.charges: Dict[str, Money] = {}
        self.refunds: Dict[str, Optional[Money]] = {}

    def charge(self, amount: Money, description: str = "") -> str:
        reference = "fake_" + uuid.uuid4().hex[:10]
        self.charges[reference] = amount
        log.debug("fake charge %s: %s (%s)", reference, amount, description)
        return reference

    def refund(self, reference: str, amount: Optional[Money] = None) -> None:
        if reference not in self.charges:
            raise PaymentFailed(f"unknown charge {reference}")
        self.refunds[reference] = amount


_provider: Optional[PaymentProvider] = None


def get_provider() -> PaymentProvider:
    global _provider
    if _provider is None:
        if get_setting("payment_provider", "fake") == "http":
            _provider = HttpProvider(get_setting("payment_url"), get_setting("payment_api_key"))
        else:
            _provider = FakeProvider()
    return _provider
''')

add("shop/services/email.py", r'''
"""Transactional email."""

import smtplib
from email.message import EmailMessage

from shop.config import get_setting

FROM_ADDRESS = "orders@shop.example"

CONFIRMATION_TEMPLATE = """Hello {name},

Thank you for your order {order_id}. We received your payment of {total} and will ship your parcel within two business days.

The shop team
"""


def build_message(to: str, subject: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = get_setting("mail_from", FROM_ADDRESS)
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


def send(message: EmailMessage) -> None:
    host = get_setting("smtp_host", "localhost")
    port = int(get_setting("smtp_port", 25))
    # TODO: use STARTTLS when the server offers it
    with smtplib.SMTP(host, port, timeout=10) as smtp:
        smtp.send_message(message)


def send_order_confirmation(order) -> None:
    body = CONFIRMATION_TEMPLATE.format(name=order.customer.display_name(), order_id=order.id, total=order.grand_total())
    send(build_message(order.customer.email, f"Your order {order.id}", body))
''')

# --------------------------------------------------------------------------- tests/

add("tests/__init__.py", "")

add("tests/conftest.py", r'''
import pytest

from shop.models.cart import Cart
from shop.models.product import Catalogue, Product
from shop.models.user import User
from shop.utils.money import Money


@pytest.fixture
def user():
    u = User(email="ada@example.com", name="Ada")
    u.add_address("Keizersgracht 1", "Amsterdam", "1015 AA")
    return u


@pytest.fixture
def catalogue():
    return Catalogue([
        Product(sku="SKU-1001", title="The Pragmatic Programmer", price=Money.parse("39.95")),
        Product(sku="SKU-1002", title="Catan", price=Money.parse("44.50"), category="games"),
        Product(sku="SKU-1003", title="Garden Hose 20m", price=Money.parse("17.99"), category="garden"),
    ])


@pytest.fixture
def cart(user, catalogue):
    c = Cart(owner=user)
    c.add("SKU-1001", 1, catalogue=catalogue)
    c.add("SKU-1003", 2, catalogue=catalogue)
    return c
''')

add("tests/test_user.py", r'''
import pytest

from shop.models.user import User


def test_email_is_lowercased():
    assert User(email="Ada@Example.COM", name="Ada").email == "ada@example.com"


def test_rejects_bad_email():
    with pytest.raises(ValueError):
        User(email="not-an-email", name="Nobody")


def test_display_name_falls_back_to_email():
    assert User(email="grace@example.com", name="").display_name() == "grace"


def test_default_address(user):
    assert user.default_address().city == "Amsterdam"


def test_domain(user):
    assert user.domain == "example.com"
''')

add("tests/test_cart.py", r'''
"""Tests for the shopping cart."""

from decimal import Decimal

import pytest

from shop.models.cart import Cart


def test_total(cart):
    assert cart.total().amount == Decimal("75.93")


def test_add_same_sku_merges(cart, catalogue):
    cart.add("SKU-1001", 2, catalogue=catalogue)
    assert cart.lines["SKU-1001"].quantity == 3
    assert len(cart) == 5


def test_remove_some(cart):
    cart.remove("SKU-1003", 1)
    assert cart.lines["SKU-1003"].quantity == 1


def test_remove_all(cart):
    cart.remove("SKU-1003")
    assert "SKU-1003" not in cart.lines


def test_clear(cart):
    cart.clear()
    assert cart.is_empty()


def test_rejects_zero_quantity(user):
    with pytest.raises(ValueError):
        Cart(owner=user).add("SKU-1001", 0)
''')

add("tests/test_money.py", r'''
from decimal import Decimal

import pytest

from shop.utils.money import Money, format_money, split_evenly


@pytest.mark.parametrize("text,amount,currency", [
    ("12.50 EUR", "12.50", "EUR"),
    ("3", "3.00", "EUR"),
    ("0.005 USD", "0.00", "USD"),
    ("0.015 USD", "0.02", "USD"),
])
def test_parse(text, amount, currency):
    money = Money.parse(text)
    assert money.amount == Decimal(amount)
    assert money.currency == currency


def test_add_and_subtract():
    assert Money.parse("1.10") + Money.parse("2.20") == Money.parse("3.30")
    assert Money.parse("5") - Money.parse("0.01") == Money.parse("4.99")


def test_cannot_mix_currencies():
    with pytest.raises(ValueError):
        Money.parse("1 EUR") + Money.parse("1 USD")


def test_format():
    assert format_money(Money.parse("1234.5")) == "\u20ac1,234.50"
    assert format_money(Money.parse("7 CHF")) == "7.00 CHF"


def test_split_evenly_adds_up():
    parts = split_evenly(Money.parse("10.00"), 3)
    assert [str(p.amount) for p in parts] == ["3.34", "3.33", "3.33"]
    assert sum(p.amount for p in parts) == Decimal("10.00")


def test_split_evenly_rejects_zero_parts():
    with pytest.raises(ValueError):
        split_evenly(Money.parse("1"), 0)
''')

add("tests/test_text.py", r'''
from shop.utils.text import join_words, pluralize, slugify, truncate


def test_slugify():
    assert slugify("Caf\u00e9 & Bar: The Book!") == "cafe-bar-the-book"


def test_truncate():
    assert truncate("a" * 100, 10) == "aaaaaaa..."
    assert truncate("short") == "short"


def test_pluralize():
    assert pluralize("box", 2) == "boxes"
    assert pluralize("city", 3) == "cities"
    assert pluralize("day", 2) == "days"
    assert pluralize("book", 1) == "book"


def test_join_words():
    assert join_words("a", "b", "c") == "a, b and c"
''')

add("tests/test_order.py", r'''
"""Tests for orders and their state machine."""

from datetime import datetime, timezone

import pytest

from shop.models.order import InvalidTransition, Order, OrderStatus, revenue
from shop.utils.money import Money


@pytest.fixture
def order(cart, user, catalogue):
    titles = {p.sku: p.title for p in catalogue._by_sku.values()}
    return Order.from_cart(cart, user.default_address(), titles)


def test_from_cart_copies_lines(order):
    assert [line.sku for line in order.lines] == ["SKU-1001", "SKU-1003"]
    assert order.lines[1].title == "Garden Hose 20m"


def test_free_shipping_above_threshold(order):
    assert order.shipping() == Money.zero()


def test_grand_total(order):
    assert order.grand_total() == Money.parse("75.93")


def test_happy_path(order):
    order.pay("ref_1")
    order.transition(OrderStatus.PACKED)
    order.ship("TRACK123")
    assert order.status is OrderStatus.SHIPPED
    assert [h["to"] for h in order.history] == ["paid", "packed", "shipped"]


def test_cannot_ship_unpaid(order):
    with pytest.raises(InvalidTransition):
        order.ship("TRACK123")


def test_cancel(order):
    order.cancel()
    assert order.status.is_final


def test_expected_delivery_skips_weekend(order):
    order.pay("ref_2")
    order.transition(OrderStatus.PACKED)
    order.ship("TRACK9")
    order.history[-1]["at"] = datetime(2024, 6, 7, 15, tzinfo=timezone.utc).isoformat()  # a Friday
    assert order.expected_delivery().date().isoformat() == "2024-06-11"


def test_revenue_ignores_cancelled(order):
    order.cancel()
    assert revenue([order]) == Money.zero()
''')


def _api_tests() -> str:
    """The API tests: a fixed header, then one test per generated product drawn from ``random.Random(SEED)``."""
    rng = random.Random(SEED)
    head = r'''
"""End-to-end tests of the API routes, calling ``dispatch`` directly."""

import json

import pytest

from shop.api import routes
from shop.api.auth import issue_token
from shop.api.routes import Request, dispatch
from shop.models.product import Product
from shop.utils.money import Money


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch):
    monkeypatch.setenv("SHOP_SECRET_KEY", "test-secret")
    monkeypatch.setattr(routes, "USERS", {})
    monkeypatch.setattr(routes, "ORDERS", {})
    monkeypatch.setattr(routes, "CARTS", {})
    monkeypatch.setattr(routes, "CATALOGUE", routes.Catalogue())
    monkeypatch.setattr(routes, "INVENTORY", routes.Inventory())


def call(method, path, body=None, **params):
    token = params.pop("token", None)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = Request(method, path, json.dumps(body or {}).encode(), headers)
    request.params = params
    return dispatch(request)


def register(email="ada@example.com", name="Ada"):
    status, body = call("POST", "/users", {"email": email, "name": name})
    assert status == 201
    return body["token"]


def test_health():
    status, body = call("GET", "/health")
    assert status == 200 and body["status"] == "ok"


def test_unknown_route():
    assert call("GET", "/nope")[0] == 404


def test_register_and_me():
    token = register()
    status, body = call("GET", "/me", token=token)
    assert status == 200
    assert body["email"] == "ada@example.com"


def test_register_twice_conflicts():
    register()
    status, body = call("POST", "/users", {"email": "ADA@example.com", "name": "Ada again"})
    assert status == 409 and body["error"] == "conflict"


def test_me_requires_token():
    assert call("GET", "/me")[0] == 401


def test_bad_token():
    assert call("GET", "/me", token="garbage")[0] == 401


def test_create_product_requires_staff():
    token = register()
    status, _ = call("POST", "/products", {"sku": "X", "title": "X", "price": "1"}, token=token)
    assert status == 403
'''
    titles = ["Dune", "Carcassonne", "Rake", "Chef's Knife", "Kite", "Emma", "Azul", "Trowel"]
    body = []
    for index, title in enumerate(titles, 1):
        price = f"{rng.randint(3, 60)}.{rng.choice(['00', '49', '95', '99'])}"
        stock = rng.randint(0, 12)
        sku = f"SKU-{2000 + index * 7}"
        body.append(f'''

def test_product_{index}_listed_with_stock():
    routes.CATALOGUE.add(Product(sku="{sku}", title="{title}", price=Money.parse("{price}")))
    routes.INVENTORY.set_level("{sku}", {stock})
    status, body = call("GET", "/products/{sku}")
    assert status == 200
    assert body["price"] == str(Money.parse("{price}"))
    assert body["in_stock"] is {stock > 0}
''')
    tail = r'''

def test_checkout_flow():
    token = register()
    routes.CATALOGUE.add(Product(sku="SKU-1", title="Dune", price=Money.parse("12.00")))
    routes.INVENTORY.set_level("SKU-1", 3)
    user = next(iter(routes.USERS.values()))
    user.add_address("Main St 1", "Utrecht", "3511 AA")
    assert call("POST", "/cart/items", {"sku": "SKU-1", "quantity": 2}, token=token)[0] == 200
    status, body = call("POST", "/checkout", token=token)
    assert status == 201, body
    assert body["status"] == "paid"
    assert routes.INVENTORY.level("SKU-1") == 1


def test_checkout_without_address_fails():
    token = register()
    status, body = call("POST", "/checkout", token=token)
    assert status == 400 and "address" in body["message"]


def test_cannot_add_more_than_stock():
    token = register()
    routes.CATALOGUE.add(Product(sku="SKU-2", title="Azul", price=Money.parse("30")))
    routes.INVENTORY.set_level("SKU-2", 1)
    status, body = call("POST", "/cart/items", {"sku": "SKU-2", "quantity": 5}, token=token)
    assert status == 409 and body["message"] == "only 1 of SKU-2 left", f"unexpected response from the cart endpoint: {body}"
'''
    return head + "".join(body) + tail


add("tests/test_api.py", _api_tests())

# --------------------------------------------------------------------------- docs/

add("docs/index.md", r'''
# shop documentation

Welcome. These pages describe how the library is put together and how to run
it in production.

- [Models](models.md): users, products, carts and orders
- [API](api.md): the HTTP routes and their bodies
- [Deployment](deployment.md): running the API behind a reverse proxy
- [Changelog](changelog.md)
''')

add("docs/models.md", r'''
# Models

All models live in `shop/models/` and derive from `Model` in `shop/models/base.py`,
which gives them `to_dict`, `from_dict` and equality by value.

## User

A `User` has an email address (stored in lower case), a name, a staff flag and a
list of addresses. `display_name()` falls back to the part of the email before
the `@` when the name is empty.

## Product and Catalogue

A `Product` has a sku, a title, a `Money` price, a category and tags. The
`Catalogue` keeps products by sku and can search them by title or tag.

## Cart

A `Cart` belongs to a user and holds one `CartLine` per sku. Adding a sku that is
already in the cart raises its quantity.

## Order

An `Order` is made from a cart at checkout. It moves through the states
`new`, `paid`, `packed`, `shipped` and `delivered`, or ends as `cancelled` or
`refunded`. Orders above 50 euro ship for free; below that, shipping costs
4.95 euro.
''')

add("docs/api.md", r'''
# HTTP API

Every response body is JSON. Errors look like

```json
{"error": "not_found", "message": "no product SKU-9"}
```

Routes marked *auth* need an `Authorization: Bearer <token>` header; routes marked
*staff* need a staff user's token.

| Method | Path | Access | What it does |
|--------|------|--------|--------------|
| GET | `/health` | public | liveness check |
| POST | `/users` | public | register; returns a token |
| GET | `/me` | auth | the current user |
| GET | `/products` | public | search products (`q`, `category`, `page`) |
| GET | `/products/<sku>` | public | one product and whether it is in stock |
| POST | `/products` | staff | add a product |
| PUT | `/products/<sku>/stock` | staff | set the stock level |
| GET | `/cart` | auth | the current cart |
| POST | `/cart/items` | auth | add a sku to the cart |
| DELETE | `/cart/items/<sku>` | auth | remove a sku from the cart |
| POST | `/checkout` | auth | pay for the cart and place an order |
| GET | `/orders` | auth | your orders, newest first |
| GET | `/orders/<id>` | auth | one order |
| POST | `/orders/<id>/cancel` | auth | cancel an order |
| POST | `/orders/<id>/ship` | staff | mark an order shipped |

## Pagination

List routes return `items`, `page`, `pages` and `total`. Pages hold 20 items by
default and at most 100.

## Tokens

Tokens are signed with the secret key and expire after an hour. There is no
refresh endpoint yet; clients register or log in again.
''')

add("docs/deployment.md", r'''
# Deployment

The API is a plain Python application; in production we run it with a WSGI
server behind nginx.

1. Copy `config/settings.json` to the server and set `secret_key`.
2. Point `config/database.yaml` at the production database.
3. Run `scripts/deploy.sh production`.

The deploy script builds a wheel, uploads it, installs it into the release's
virtual environment and restarts the service. Backups are taken nightly by
`scripts/backup.sh`.
''')

add("docs/changelog.md", r'''
# Changelog

## 0.4.2

- Fix rounding of split payments.
- Shipping is free above 50 euro.

## 0.4.1

- Staff can set stock levels through the API.

## 0.4.0

- Orders remember their history of state changes.
- New `Catalogue.search` with category filter.

## 0.3.0

- First public release.
''')

# --------------------------------------------------------------------------- config/

add("config/settings.json", r'''
{
  "environment": "development",
  "debug": true,
  "currency": "EUR",
  "secret_key": "",
  "payment_provider": "fake",
  "payment_url": "https://payments.example/api",
  "smtp_host": "localhost",
  "smtp_port": 1025,
  "mail_from": "orders@shop.example",
  "initial_stock": {
    "SKU-1001": 12,
    "SKU-1002": 4,
    "SKU-1003": 30
  }
}
''')

add("config/payment.json", r'''
{
  "providers": ["fake", "http"],
  "retries": 2,
  "timeout_seconds": 10
}
''')

add("config/logging.yaml", r'''
version: 1
disable_existing_loggers: false

formatters:
  plain:
    format: "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
  json:
    format: '{"time": "%(asctime)s", "level": "%(levelname)s", "logger": "%(name)s", "message": "%(message)s"}'

handlers:
  console:
    class: logging.StreamHandler
    formatter: plain
    level: INFO
  file:
    class: logging.handlers.RotatingFileHandler
    formatter: json
    filename: logs/shop.log
    maxBytes: 10485760
    backupCount: 5

loggers:
  shop:
    level: DEBUG
    handlers: [console, file]
    propagate: false
  shop.services.payment:
    level: INFO

root:
  level: WARNING
  handlers: [console]
''')

add("config/database.yaml", r'''
default: &default
  engine: postgresql
  host: localhost
  port: 5432
  pool_size: 5

development:
  <<: *default
  name: shop_dev

test:
  <<: *default
  name: shop_test

production:
  <<: *default
  host: db.internal
  name: shop
  pool_size: 20
''')

add("config/features.toml", r'''
# Feature flags; flip them without a deploy by editing this file on the server.

[checkout]
guest_checkout = false
gift_wrapping = true

[catalogue]
search_by_tag = true
show_stock_levels = false

[email]
order_confirmation = true
shipping_updates = false
''')

# --------------------------------------------------------------------------- scripts/

add("scripts/deploy.sh", r'''
#!/usr/bin/env bash
# Build the wheel and roll it out to the given environment.
set -euo pipefail

ENVIRONMENT="${1:-staging}"
HOST="shop-${ENVIRONMENT}.internal"
RELEASE="$(date +%Y%m%d%H%M%S)"

echo "Deploying to ${ENVIRONMENT} (${HOST}), release ${RELEASE}"

python -m pip wheel --no-deps -w dist .
WHEEL="$(ls -t dist/shop-*.whl | head -n 1)"

scp "${WHEEL}" "deploy@${HOST}:/srv/shop/releases/"
ssh "deploy@${HOST}" bash -s <<EOF
set -e
python3 -m venv /srv/shop/releases/${RELEASE}
/srv/shop/releases/${RELEASE}/bin/pip install /srv/shop/releases/$(basename "${WHEEL}")
ln -sfn /srv/shop/releases/${RELEASE} /srv/shop/current
sudo systemctl restart shop
EOF

# TODO: run a smoke test against /health before declaring success
echo "Done."
''')

add("scripts/backup.sh", r'''
#!/bin/sh
set -e
STAMP=$(date +%F)
pg_dump shop | gzip > "/var/backups/shop-${STAMP}.sql.gz"
find /var/backups -name 'shop-*.sql.gz' -mtime +14 -delete
''')

add("scripts/seed_db.py", r'''
"""Fill a development database with a few users, products and stock."""

import argparse
import json
import random
from pathlib import Path

TITLES = ["Dune", "Emma", "Catan", "Azul", "Rake", "Kite", "Teapot", "Trowel"]


def make_products(count: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    return [
        {"sku": f"SKU-{1000 + i}", "title": rng.choice(TITLES), "price": f"{rng.randint(3, 60)}.99"}
        for i in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--out", type=Path, default=Path("seed.json"))
    args = parser.parse_args()
    args.out.write_text(json.dumps({"products": make_products(args.count)}, indent=2))
    print(f"wrote {args.count} products to {args.out}")


if __name__ == "__main__":
    main()
''')


def make(root: Path) -> Path:
    """Write the project beneath ``root``; ``root``."""
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


if __name__ == "__main__":
    make(Path(sys.argv[1]))
    print(f"wrote {len(FILES)} files under {sys.argv[1]}")
