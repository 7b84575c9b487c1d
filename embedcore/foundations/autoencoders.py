"""Autoencoders as scikit-learn MLPs trained to output their input: the linear one against PCA, non-linear and denoising ones, and the contractive penalty (the encoder Jacobian's norm)."""

from __future__ import annotations

import numpy as np

from .._linalg import check_k, pca_basis


def train_autoencoder(X, k: int, *, kind: str = "linear", noise: float = 0.0, hidden: int = 64,
                      max_iter: int = 400, random_state=0):
    """A bottleneck autoencoder (scikit-learn's MLPRegressor trained to output its input).

    kind "linear": one hidden layer of k identity units, so it can only learn
    a k-dimensional linear subspace (PCA's, at the optimum); it is trained by
    L-BFGS on the full batch, which gets within a degree of that subspace in a
    fraction of the time Adam's minibatches take. kind "nonlinear": hidden ->
    k -> hidden tanh layers, trained by Adam. ``noise`` > 0 trains a denoising
    autoencoder: Gaussian noise of that standard deviation (in standardised
    units) is added to the inputs while the targets stay clean.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> model = train_autoencoder(X, 1, kind="linear")
    >>> model.hidden_layer_sizes, model.predict(X).shape
    ((1,), (200, 3))
    """
    from sklearn.neural_network import MLPRegressor

    if kind not in ("linear", "nonlinear"):
        raise ValueError(f"kind must be 'linear' or 'nonlinear', got {kind!r}.")
    X = np.asarray(X, dtype=np.float64)
    k = check_k(k, X.shape[1])
    rng = np.random.default_rng(random_state)
    inputs = X + noise * rng.standard_normal(X.shape) if noise > 0 else X
    layers = (k,) if kind == "linear" else (hidden, k, hidden)
    if kind == "linear":
        model = MLPRegressor(hidden_layer_sizes=layers, activation="identity", solver="lbfgs", max_iter=max_iter,
                             tol=1e-7, random_state=random_state)
    else:
        model = MLPRegressor(hidden_layer_sizes=layers, activation="tanh", solver="adam", learning_rate_init=3e-3,
                             max_iter=max_iter, tol=1e-7, n_iter_no_change=30, random_state=random_state)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: max_iter is the page's knob
        model.fit(inputs, X)
    return model


def autoencoder_subspace(model) -> np.ndarray:
    """Orthonormal basis (d, k) of the linear autoencoder's decoder: the subspace it reconstructs in.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> autoencoder_subspace(train_autoencoder(X, 2)).shape
    (3, 2)
    """
    W = model.coefs_[-1]  # (k, d): decoder weights
    Q, _ = np.linalg.qr(W.T)
    return Q


def principal_angles_deg(A, B) -> np.ndarray:
    """Principal angles (degrees) between the column spaces of A and B.

    Examples
    --------
    >>> principal_angles_deg(np.array([[1.0], [0.0], [0.0]]), np.array([[1.0], [1.0], [0.0]])).round(3).tolist()
    [45.0]
    """
    from scipy.linalg import subspace_angles

    return np.degrees(np.sort(subspace_angles(A, B)))


def reconstruction_mse(model, X, target=None) -> float:
    """Mean squared error of ``model.predict(X)`` against ``target`` (``X`` itself by default).

    Examples
    --------
    >>> class Zero:
    ...     def predict(self, X):
    ...         return np.zeros_like(X)
    >>> reconstruction_mse(Zero(), np.array([[1.0, 3.0]]))
    5.0
    """
    X = np.asarray(X, dtype=np.float64)
    target = X if target is None else np.asarray(target, dtype=np.float64)
    return float(((model.predict(X) - target) ** 2).mean())


def linear_autoencoder_vs_pca(X, k: int, *, random_state=0):
    """Train a linear autoencoder with ``k`` units; return its principal angles to PCA's top-k subspace and its MSE.

    With one linear layer and squared loss the optimum spans PCA's subspace,
    so the angles (degrees, smallest first) measure how far the optimiser
    stopped from it.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> angles, mse = linear_autoencoder_vs_pca(X, 2)
    >>> bool(angles.max() < 1.0)  # degrees: the optimiser lands on PCA's plane
    True
    """
    X = np.asarray(X, dtype=np.float64)
    model = train_autoencoder(X, k, kind="linear", random_state=random_state)
    _, basis, _ = pca_basis(X, k)
    return principal_angles_deg(autoencoder_subspace(model), basis), reconstruction_mse(model, X)


def denoising_panel(X, models: dict, noise: float, *, n_show: int = 6, image_shape=(8, 8), random_state=0):
    """Corrupt ``n_show`` random rows of ``X`` and reconstruct them with each model.

    Returns ``(grid, stages, errors)``: the images side by side, one row of
    images per stage (``"original"``, ``"corrupted"``, then each model by its
    name in ``models``), the stages' names, and each stage's mean squared
    error against the originals.

    Examples
    --------
    >>> class Identity:
    ...     def predict(self, X):
    ...         return X
    >>> grid, stages, errors = denoising_panel(np.zeros((10, 4)), {"copy": Identity()}, 0.0, n_show=3,
    ...                                        image_shape=(2, 2))
    >>> grid.shape, stages, errors
    ((6, 6), ['original', 'corrupted', 'copy'], {'corrupted': 0.0, 'copy': 0.0})
    """
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    idx = rng.choice(len(X), n_show, replace=False)
    noisy = X[idx] + noise * rng.standard_normal((n_show, X.shape[1]))
    rows = {"original": X[idx], "corrupted": noisy, **{name: m.predict(noisy) for name, m in models.items()}}
    errors = {name: float(((v - X[idx]) ** 2).mean()) for name, v in rows.items() if name != "original"}
    grid = np.vstack([np.hstack([r.reshape(image_shape) for r in v]) for v in rows.values()])
    return grid, list(rows), errors


_DERIVATIVES = {
    "identity": lambda a: np.ones_like(a),
    "tanh": lambda a: 1.0 - a**2,
    "logistic": lambda a: a * (1.0 - a),
    "relu": lambda a: (a > 0).astype(np.float64),
}


def encoder_jacobian_norm(model, X) -> float:
    """The mean over the rows of ``||dz/dx||_F^2``: how much the bottleneck ``z`` moves when the input moves.

    ``model`` is a fitted MLPRegressor autoencoder; the bottleneck is its
    narrowest hidden layer, the encoder every layer up to it. The Jacobian
    of each row is the product of the layers' weights with the activations'
    derivatives between them, formed for all rows at once; its squared
    Frobenius norm is the contractive autoencoder's penalty (before the
    weight lambda).

    Examples
    --------
    >>> from sklearn.neural_network import MLPRegressor
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> ae = MLPRegressor(hidden_layer_sizes=(2,), activation="identity", max_iter=5, random_state=0).fit(X, X)
    >>> bool(np.isclose(encoder_jacobian_norm(ae, X), (ae.coefs_[0] ** 2).sum()))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    sizes = list(model.hidden_layer_sizes) if np.ndim(model.hidden_layer_sizes) else [model.hidden_layer_sizes]
    bottleneck = int(np.argmin(sizes))
    derivative = _DERIVATIVES[model.activation]
    a = X
    J = None  # (n, d, units): d(layer)/dx for every row
    for W, b in zip(model.coefs_[:bottleneck + 1], model.intercepts_[:bottleneck + 1]):
        a = _activate(model.activation, a @ W + b)
        step = W[None] * derivative(a)[:, None, :]
        J = step if J is None else J @ step
    return float((J ** 2).sum(axis=(1, 2)).mean())


def _activate(name: str, z: np.ndarray) -> np.ndarray:
    if name == "identity":
        return z
    if name == "tanh":
        return np.tanh(z)
    if name == "logistic":
        return 1.0 / (1.0 + np.exp(-z))
    if name == "relu":
        return np.maximum(z, 0.0)
    raise ValueError(f"Unknown activation {name!r}.")
