"""A contractive autoencoder, trained with the encoder Jacobian's squared norm added to its loss.

scikit-learn's MLPRegressor (behind :mod:`.autoencoders`) minimises squared
error only, so this small network is written out in numpy: a tanh encoder
``z = tanh(x W1 + b1)`` to the k-unit bottleneck, a decoder
``y = tanh(z W2 + b2) W3 + b3``, trained by Adam on minibatches. For a
one-layer tanh encoder the Jacobian is ``dz_i/dx_h = (1 - z_i^2) W1[h, i]``,
so its squared Frobenius norm has the closed form

    ||J(x)||_F^2 = sum_i (1 - z_i^2)^2 ||W1[:, i]||^2

and the penalty's gradient costs no more than the forward pass (Rifai et al.
2011). The fitted network carries MLPRegressor's attributes (``coefs_``,
``intercepts_``, ``hidden_layer_sizes``, ``activation``) and ``predict``, so
:func:`.autoencoders.encoder_jacobian_norm`, :func:`.autoencoders.reconstruction_mse`
and :func:`.autoencoders.denoising_panel` measure it as they measure the others.
The same network with ``penalty=0`` is the plain autoencoder, and with
``noise > 0`` the denoising one: the three differ only in their loss.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from .autoencoders import encoder_jacobian_norm, reconstruction_mse

__all__ = ["AutoencoderComparison", "ContractiveAutoencoder", "contractive_comparison", "jacobian_penalty"]


def jacobian_penalty(X, W1, b1) -> np.ndarray:
    """Each row's ``||dz/dx||_F^2`` for the encoder ``z = tanh(x W1 + b1)``, by the closed form.

    Examples
    --------
    >>> W1 = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> jacobian_penalty(np.zeros((1, 2)), W1, np.zeros(2)).tolist()  # at 0, tanh' = 1: ||W1||_F^2
    [5.0]
    """
    z = np.tanh(np.asarray(X, dtype=np.float64) @ W1 + b1)
    return ((1.0 - z**2) ** 2) @ (W1**2).sum(axis=0)


class ContractiveAutoencoder(TransformerMixin, BaseEstimator):
    """A bottleneck autoencoder trained on ``mean ||x - ae(x~)||^2 + penalty * mean ||J_z(x)||_F^2``.

    Parameters
    ----------
    n_components : k, the bottleneck's tanh units
    hidden : the decoder's tanh layer
    penalty : lambda, the weight of the encoder Jacobian's squared Frobenius norm (0: plain)
    noise : standard deviation of the Gaussian noise added to the inputs x~ while the targets stay clean
        (0: none; above 0 with ``penalty=0``: a denoising autoencoder)
    epochs, batch_size, learning_rate : Adam's schedule
    random_state : seeds the weights, the batches and the noise

    Attributes
    ----------
    coefs_, intercepts_ : the three layers' weights and biases, as MLPRegressor keeps them
    loss_curve_ : the training loss (reconstruction plus penalty) after each epoch
    jacobian_curve_ : the training rows' mean ||J_z||_F^2 after each epoch

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((200, 6))
    >>> plain = ContractiveAutoencoder(n_components=2, epochs=20, random_state=0).fit(X)
    >>> tight = ContractiveAutoencoder(n_components=2, penalty=1.0, epochs=20, random_state=0).fit(X)
    >>> bool(tight.jacobian_curve_[-1] < plain.jacobian_curve_[-1])
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "hidden": [Interval(Integral, 1, None, closed="left")],
        "penalty": [Interval(Real, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    activation = "tanh"

    def __init__(self, *, n_components: int = 8, hidden: int = 64, penalty: float = 0.0, noise: float = 0.0,
                 epochs: int = 60, batch_size: int = 64, learning_rate: float = 3e-3, random_state=None):
        self.n_components = n_components
        self.hidden = hidden
        self.penalty = penalty
        self.noise = noise
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.random_state = random_state

    @property
    def hidden_layer_sizes(self) -> tuple[int, int]:
        """(k, hidden): the bottleneck first, as :func:`.autoencoders.encoder_jacobian_norm` looks for it."""
        return (self.n_components, self.hidden)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Train on the rows of ``X`` (targets: ``X`` itself)."""
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        k, H, lam = self.n_components, self.hidden, float(self.penalty)
        sizes = [d, k, H, d]
        # Glorot-uniform weights, as MLPRegressor starts tanh layers
        params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            bound = np.sqrt(6.0 / (a + b))
            params += [rng.uniform(-bound, bound, (a, b)), np.zeros(b)]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        beta1, beta2, step = 0.9, 0.999, 0
        self.loss_curve_, self.jacobian_curve_ = [], []
        for _ in range(self.epochs):
            order = rng.permutation(n)
            total = 0.0
            for start in range(0, n, self.batch_size):
                rows = order[start:start + self.batch_size]
                target = X[rows]
                inputs = target + self.noise * rng.standard_normal(target.shape) if self.noise > 0 else target
                loss, grads = self._loss_and_gradient(params, inputs, target, lam)
                total += loss * len(rows)
                step += 1
                for p, g, mi, vi in zip(params, grads, m, v):
                    mi *= beta1
                    mi += (1 - beta1) * g
                    vi *= beta2
                    vi += (1 - beta2) * g * g
                    p -= self.learning_rate * (mi / (1 - beta1**step)) / (np.sqrt(vi / (1 - beta2**step)) + 1e-8)
            self.loss_curve_.append(total / n)
            self.jacobian_curve_.append(float(jacobian_penalty(X, params[0], params[1]).mean()))
        self.coefs_ = params[0::2]
        self.intercepts_ = params[1::2]
        return self

    @staticmethod
    def _loss_and_gradient(params, inputs, target, lam):
        W1, b1, W2, b2, W3, b3 = params
        n = len(inputs)
        z = np.tanh(inputs @ W1 + b1)
        h = np.tanh(z @ W2 + b2)
        y = h @ W3 + b3
        err = y - target
        s = 1.0 - z**2  # tanh' at the bottleneck
        col = (W1**2).sum(axis=0)  # ||W1[:, i]||^2
        penalty = (s**2) @ col
        loss = float((err**2).sum(axis=1).mean() + lam * penalty.mean())
        dy = 2.0 * err / n
        dh = (dy @ W3.T) * (1.0 - h**2)
        dz = dh @ W2.T
        # the penalty through z: d(s^2)/da = -4 z s^2, and through ||W1[:, i]||^2 directly
        da1 = dz * s + (lam / n) * (-4.0 * z * s**2) * col
        gW1 = inputs.T @ da1 + (lam / n) * 2.0 * W1 * (s**2).sum(axis=0)
        return loss, [gW1, da1.sum(axis=0), z.T @ dh, dh.sum(axis=0), h.T @ dy, dy.sum(axis=0)]

    def transform(self, X) -> np.ndarray:
        """The bottleneck code z of each row."""
        check_is_fitted(self, "coefs_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.tanh(X @ self.coefs_[0] + self.intercepts_[0])

    def predict(self, X) -> np.ndarray:
        """Each row reconstructed through the bottleneck."""
        z = self.transform(X)
        h = np.tanh(z @ self.coefs_[1] + self.intercepts_[1])
        return h @ self.coefs_[2] + self.intercepts_[2]


class AutoencoderComparison(NamedTuple):
    """The plain, denoising and contractive autoencoder on the same rows (:func:`contractive_comparison`).

    ``table`` has a row per network: ``autoencoder`` (its name), ``held-out
    MSE`` (per entry, clean inputs) and ``mean ||J_z||_F^2`` (over the
    held-out rows); ``networks`` maps each name to its fitted network.

    Examples
    --------
    >>> AutoencoderComparison._fields
    ('table', 'networks')
    """

    table: pd.DataFrame
    networks: dict


def contractive_comparison(X, k: int, *, noise: float, penalty: float, test_share: float = 0.2, epochs: int = 60,
                           random_state=None) -> AutoencoderComparison:
    """The plain, denoising and contractive autoencoder on the same rows, scored on held-out rows.

    The three share the architecture, the start and the schedule; they differ
    only in the loss (clean inputs; inputs with noise of standard deviation
    ``noise``; clean inputs plus ``penalty`` times the Jacobian's squared norm).
    Returns an :class:`AutoencoderComparison`: a table with a row per network
    (``autoencoder``, ``held-out MSE`` per entry on clean inputs, ``mean
    ||J_z||_F^2`` over the held-out rows) and the fitted networks by name.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 4))
    >>> result = contractive_comparison(X, 2, noise=0.1, penalty=0.1, epochs=2, random_state=0)
    >>> result.table["autoencoder"].tolist(), list(result.networks) == result.table["autoencoder"].tolist()
    (['plain', 'denoising (σ = 0.1)', 'contractive (λ = 0.1)'], True)
    """
    X = np.asarray(X, dtype=np.float64)
    rng = check_random_state(random_state)
    order = rng.permutation(len(X))
    n_test = max(1, int(round(test_share * len(X))))
    test, train = X[order[:n_test]], X[order[n_test:]]
    seed = rng.randint(2**31 - 1)
    nets = {
        "plain": ContractiveAutoencoder(n_components=k, epochs=epochs, random_state=seed),
        f"denoising (σ = {noise:g})": ContractiveAutoencoder(n_components=k, noise=noise, epochs=epochs,
                                                               random_state=seed),
        f"contractive (λ = {penalty:g})": ContractiveAutoencoder(n_components=k, penalty=penalty, epochs=epochs,
                                                                   random_state=seed),
    }
    rows = []
    for name, net in nets.items():
        net.fit(train)
        rows.append({"autoencoder": name, "held-out MSE": reconstruction_mse(net, test),
                     "mean ||J_z||_F^2": encoder_jacobian_norm(net, test)})
    return AutoencoderComparison(pd.DataFrame(rows), nets)
