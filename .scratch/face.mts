import sharp from 'sharp';
import { renderLookPhoto } from '../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { preparePhotoPresenter } from '../lambdas/engines/vision/photo-presenter.js';
const photo = await sharp(await renderLookPhoto(findStockLook('sofia-newsroom')!)).resize(1280, 720).png().toBuffer();
const p = await preparePhotoPresenter(photo);
if (p.kind === 'animated') console.log(p.sprites.blink.box, p.sprites.rest.box, p.face.box);
