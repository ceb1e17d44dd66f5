<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr_FR">
<context>
    <name>@default</name>
    <message>
        <location filename="../plugin/deps.py" line="118"/>
        <source>Missing Python packages: {0}. Install them with: {1} (then restart QGIS).</source>
        <translation>Paquets Python manquants : {0}. Installez-les avec : {1} (puis redémarrez QGIS).</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Helmert (shift, rotation, one scale)</source>
        <translation>Helmert (translation, rotation, une échelle)</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Affine (keeps the scan&apos;s pixels)</source>
        <translation>Affine (garde les pixels du scan)</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Projective</source>
        <translation>Projective</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Polynomial, order 2</source>
        <translation>Polynomiale d'ordre 2</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Polynomial, order 3</source>
        <translation>Polynomiale d'ordre 3</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="24"/>
        <source>Thin plate spline</source>
        <translation>Spline en plaque mince</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="57"/>
        <source>Pixel column of the intersection on the scan</source>
        <translation>Colonne du pixel de l'intersection sur le scan</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="58"/>
        <source>Pixel row of the intersection (counted downwards)</source>
        <translation>Ligne du pixel de l'intersection (comptée vers le bas)</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="59"/>
        <source>Easting of the intersection in the grid CRS</source>
        <translation>Abscisse (est) de l'intersection dans le SCR du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="60"/>
        <source>Northing of the intersection in the grid CRS</source>
        <translation>Ordonnée (nord) de l'intersection dans le SCR du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="66"/>
        <source>Pick on map</source>
        <translation>Choisir sur la carte</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="67"/>
        <source>Detect the intersections first, then click one on the map</source>
        <translation>Détectez d'abord les intersections, puis cliquez sur l'une d'elles dans la carte</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="76"/>
        <source>Anchor {0}: give the pixel position (X and Y) and the grid coordinates (E and N), or leave all four empty.</source>
        <translation>Repère {0} : donnez la position en pixels (X et Y) et les coordonnées du carroyage (E et N), ou laissez les quatre cases vides.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="84"/>
        <source>Anchor {0}: “{1}” is not a number.</source>
        <translation>Repère {0} : « {1} » n'est pas un nombre.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="108"/>
        <source>Detect graticule &amp; georeference</source>
        <translation>Détecter le carroyage et géoréférencer</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="69"/>
        <source>Scanned sheet</source>
        <translation>Planche numérisée</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="33"/>
        <source>Sheet</source>
        <translation>Planche</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="71"/>
        <source>PNG masks (*.png);;All files (*)</source>
        <translation>Masques PNG (*.png);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="115"/>
        <source>automatic: NNN-INPUT-MASK.png or NAME-MASK.png beside the sheet, if any</source>
        <translation>automatique : NNN-INPUT-MASK.png ou NOM-MASK.png à côté de la planche, s'il existe</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="33"/>
        <source>Map-area mask</source>
        <translation>Masque de l'emprise</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="117"/>
        <source>Graticule</source>
        <translation>Carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="35"/>
        <source>Grid CRS</source>
        <translation>SCR du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="35"/>
        <source>Grid spacing</source>
        <translation>Pas du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="136"/>
        <source>Anchor: which intersection is which</source>
        <translation>Repère : quelle intersection est laquelle</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="31"/>
        <source>Pixel X</source>
        <translation>Pixel X</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="31"/>
        <source>Pixel Y</source>
        <translation>Pixel Y</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Easting</source>
        <translation>Est (E)</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Northing</source>
        <translation>Nord (N)</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="33"/>
        <source>Anchor</source>
        <translation>Repère</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="143"/>
        <source>Second anchor (rotated sheets)</source>
        <translation>Second repère (planches tournées)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/refit_gcps.py" line="38"/>
        <source>QGIS GCP files (*.points);;All files (*)</source>
        <translation>Fichiers de points de contrôle QGIS (*.points);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="159"/>
        <source>automatic: &lt;sheet&gt;.points beside the sheet, if any</source>
        <translation>automatique : &lt;planche&gt;.points à côté de la planche, s'il existe</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="34"/>
        <source>Known points (.points)</source>
        <translation>Points connus (.points)</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="166"/>
        <source>Result</source>
        <translation>Résultat</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="35"/>
        <source>Target CRS</source>
        <translation>SCR cible</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="36"/>
        <source>Transform</source>
        <translation>Transformation</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="176"/>
        <source>automatic: &lt;sheet&gt;_georef beside the sheet</source>
        <translation>automatique : &lt;planche&gt;_georef à côté de la planche</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="36"/>
        <source>Output folder</source>
        <translation>Dossier de sortie</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="181"/>
        <source>Detect intersections</source>
        <translation>Détecter les intersections</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="182"/>
        <source>Find the intersections first, to pick an anchor on the map</source>
        <translation>Trouver d'abord les intersections, pour choisir un repère sur la carte</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="189"/>
        <source>Georeference</source>
        <translation>Géoréférencer</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="201"/>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="205"/>
        <source>Choose the grid CRS (the coordinates printed on the sheet).</source>
        <translation>Choisissez le SCR du carroyage (celui des coordonnées imprimées sur la planche).</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="207"/>
        <source>Choose the target CRS of the georeferenced sheet.</source>
        <translation>Choisissez le SCR cible de la planche géoréférencée.</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="176"/>
        <source>Graticule Georeferencer</source>
        <translation>Graticule Georeferencer</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="239"/>
        <source>A job is already running; wait for it or cancel it.</source>
        <translation>Un traitement est déjà en cours ; attendez sa fin ou annulez-le.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="229"/>
        <source>Detecting the graticule of {0}</source>
        <translation>Détection du carroyage de {0}</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="235"/>
        <source>Georeferencing {0}</source>
        <translation>Géoréférencement de {0}</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="258"/>
        <source>{0} cancelled; nothing was written.</source>
        <translation>{0} annulé ; aucun fichier n'a été écrit.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="261"/>
        <source>{0} failed.</source>
        <translation>{0} : échec.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="229"/>
        <source>Detection</source>
        <translation>Détection</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="40"/>
        <source>Georeferencing</source>
        <translation>Géoréférencement</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="95"/>
        <source>QGIS cannot open {0}.</source>
        <translation>QGIS ne peut pas ouvrir {0}.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="395"/>
        <source>Detect the intersections first.</source>
        <translation>Détectez d'abord les intersections.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="404"/>
        <source>Click an intersection (red cross) on the map.</source>
        <translation>Cliquez sur une intersection (croix rouge) dans la carte.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="420"/>
        <source>No detected intersection near the click; click closer to a red cross.</source>
        <translation>Aucune intersection détectée près du clic ; cliquez plus près d'une croix rouge.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="76"/>
        <source>Choose an image file</source>
        <translation>Choisir un fichier image</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="126"/>
        <source>Choose the scanned sheet: a raster layer or an image file.</source>
        <translation>Choisissez la planche numérisée : une couche raster ou un fichier image.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="129"/>
        <source>The file {0} does not exist; choose the sheet again.</source>
        <translation>Le fichier {0} n'existe pas ; choisissez à nouveau la planche.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="171"/>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <location filename="../plugin/jobs.py" line="90"/>
        <source>done</source>
        <translation>terminé</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="121"/>
        <source>Used in the fit</source>
        <translation>Retenue pour le calage</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="72"/>
        <source>Left out (outlier)</source>
        <translation>Écartée (aberrante)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="133"/>
        <source>{0} (georeferenced)</source>
        <translation>{0} (géoréférencée)</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="90"/>
        <source>{0} intersections</source>
        <translation>{0} intersections</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="93"/>
        <source>QGIS cannot open the results in {0}</source>
        <translation>QGIS ne peut pas ouvrir les résultats dans {0}</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="163"/>
        <source>Detected intersections</source>
        <translation>Intersections détectées</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="58"/>
        <source>&amp;Graticule Georeferencer</source>
        <translation>&amp;Graticule Georeferencer</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="61"/>
        <source>Detect graticule &amp;&amp; georeference…</source>
        <translation>Détecter le carroyage et géoréférencer…</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="61"/>
        <source>Find the grid intersections of a scanned sheet and georeference it</source>
        <translation>Trouver les intersections du carroyage d'une planche numérisée et la géoréférencer</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="65"/>
        <source>Vectorize building blocks…</source>
        <translation>Vectoriser les îlots…</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="65"/>
        <source>Turn the building blocks of a sheet into GeoPackage polygons</source>
        <translation>Transformer les îlots d'une planche en polygones GeoPackage</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="45"/>
        <source>Vectorization</source>
        <translation>Vectorisation</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="46"/>
        <source>Evaluation (ICDAR 2021 MapSeg)</source>
        <translation>Évaluation (ICDAR 2021 MapSeg)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="130"/>
        <source>Cancelled; nothing was written.</source>
        <translation>Annulé ; aucun fichier n'a été écrit.</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="57"/>
        <source>Not enough memory for this sheet: close other programs and try again.</source>
        <translation>Mémoire insuffisante pour cette planche : fermez d'autres programmes et réessayez.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="31"/>
        <source>Detect graticule intersections</source>
        <translation>Détecter les intersections du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="71"/>
        <source>Map-area mask (PNG, optional)</source>
        <translation>Masque de l'emprise (PNG, facultatif)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="48"/>
        <source>Grid spacing in pixels (0 = find it)</source>
        <translation>Pas du carroyage en pixels (0 = le trouver)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="51"/>
        <source>Graticule intersections</source>
        <translation>Intersections du carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="53"/>
        <source>Intersections as a MapSeg CSV</source>
        <translation>Intersections en CSV MapSeg</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="53"/>
        <source>CSV files (*.csv)</source>
        <translation>Fichiers CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="56"/>
        <source>Number of intersections</source>
        <translation>Nombre d'intersections</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="57"/>
        <source>Grid spacing found (pixels)</source>
        <translation>Pas du carroyage trouvé (pixels)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="81"/>
        <source>{0} intersections found.</source>
        <translation>{0} intersections trouvées.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="31"/>
        <source>Score building blocks (MapSeg T1)</source>
        <translation>Évaluer les îlots (MapSeg T1)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="31"/>
        <source>COCO panoptic quality (PQ = SQ × RQ) of predicted building blocks against the reference, as in ICDAR 2021 MapSeg task 1. Both files are single-channel images of one size: 0/255 masks (blocks are their 4-connected regions) or integer label maps. A block counts as found when its IoU with a reference block exceeds 0.5.</source>
        <translation>Qualité panoptique COCO (PQ = SQ × RQ) des îlots prédits par rapport à la référence, comme dans la tâche 1 d'ICDAR 2021 MapSeg. Les deux fichiers sont des images à un canal de même taille : masques 0/255 (les îlots sont leurs régions 4-connexes) ou cartes d'étiquettes entières. Un îlot compte comme trouvé quand son IoU avec un îlot de référence dépasse 0,5.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="73"/>
        <source>Panoptic quality (PQ)</source>
        <translation>Qualité panoptique (PQ)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="73"/>
        <source>Segmentation quality (SQ)</source>
        <translation>Qualité de segmentation (SQ)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="74"/>
        <source>Recognition quality (RQ)</source>
        <translation>Qualité de reconnaissance (RQ)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="41"/>
        <source>Score graticule intersections (MapSeg T3)</source>
        <translation>Évaluer les intersections du carroyage (MapSeg T3)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="41"/>
        <source>Point detection score of detected intersections against the reference, as in ICDAR 2021 MapSeg task 3: the area under the F-score (beta 0.5) curve for distances up to 50 pixels (1 is perfect). Both files are MapSeg CSVs with an x,y header and one point a line, in pixels (y downwards).</source>
        <translation>Score de détection de points (PDS) des intersections détectées par rapport à la référence, comme dans la tâche 3 d'ICDAR 2021 MapSeg : l'aire sous la courbe du F-score (bêta 0,5) pour des distances jusqu'à 50 pixels (1 est parfait). Les deux fichiers sont des CSV MapSeg avec un en-tête x,y et un point par ligne, en pixels (y vers le bas).</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="74"/>
        <source>Point detection score (PDS)</source>
        <translation>Score de détection de points (PDS)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="37"/>
        <source>Score map area (MapSeg T2)</source>
        <translation>Évaluer l'emprise de la carte (MapSeg T2)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="37"/>
        <source>95 % Hausdorff distance, in pixels, between the outlines of the predicted and the reference map-area masks, as in ICDAR 2021 MapSeg task 2 (0 is perfect). Both files are 0/255 single-channel images of one size.</source>
        <translation>Distance de Hausdorff à 95 %, en pixels, entre les contours des masques d'emprise prédit et de référence, comme dans la tâche 2 d'ICDAR 2021 MapSeg (0 est parfait). Les deux fichiers sont des images 0/255 à un canal de même taille.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="75"/>
        <source>95 % Hausdorff distance (pixels)</source>
        <translation>Distance de Hausdorff à 95 % (pixels)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="54"/>
        <source>Georeference a sheet from its graticule</source>
        <translation>Géoréférencer une planche d'après son carroyage</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="82"/>
        <source>Anchors X,Y=E,N (separated by ;)</source>
        <translation>Repères X,Y=E,N (séparés par ;)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="84"/>
        <source>Known points (.points file)</source>
        <translation>Points connus (fichier .points)</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="38"/>
        <source>Outlier rejection</source>
        <translation>Rejet des points aberrants</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="33"/>
        <source>None</source>
        <translation>Aucun</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="100"/>
        <source>Resampling (warped transforms)</source>
        <translation>Rééchantillonnage (transformations avec déformation)</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="38"/>
        <source>Bilinear</source>
        <translation>Bilinéaire</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="38"/>
        <source>Nearest neighbour</source>
        <translation>Plus proche voisin</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="38"/>
        <source>Cubic</source>
        <translation>Cubique</translation>
    </message>
    <message>
        <location filename="../plugin/choices.py" line="38"/>
        <source>Lanczos</source>
        <translation>Lanczos</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="109"/>
        <source>Intersections with residuals</source>
        <translation>Intersections et leurs résidus</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="112"/>
        <source>Georeferenced sheet</source>
        <translation>Planche géoréférencée</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="114"/>
        <source>RMSE (map units)</source>
        <translation>Erreur quadratique moyenne (unités de la carte)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="115"/>
        <source>RMSE (pixels)</source>
        <translation>Erreur quadratique moyenne (pixels)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="116"/>
        <source>Intersections used</source>
        <translation>Intersections retenues</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="117"/>
        <source>Report</source>
        <translation>Rapport</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="118"/>
        <source>GCP file (.points)</source>
        <translation>Fichier de points de contrôle (.points)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="81"/>
        <source>Reference (ground truth)</source>
        <translation>Référence (vérité terrain)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="83"/>
        <source>Prediction</source>
        <translation>Prédiction</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="85"/>
        <source>Reproduce the official evaluator exactly, errors included</source>
        <translation>Reproduire exactement l'évaluateur officiel, erreurs comprises</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="93"/>
        <source>Summary (JSON)</source>
        <translation>Résumé (JSON)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="106"/>
        <source>scoring</source>
        <translation>évaluation</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/provider.py" line="30"/>
        <source>Graticule Georeferencer: historical map sheets</source>
        <translation>Graticule Georeferencer : planches de cartes anciennes</translation>
    </message>
    <message>
        <location filename="../plugin/sheets.py" line="30"/>
        <source>The selected raster layer is not valid; choose another sheet.</source>
        <translation>La couche raster choisie n'est pas valide ; choisissez une autre planche.</translation>
    </message>
    <message>
        <location filename="../plugin/sheets.py" line="32"/>
        <source>Layer “{0}” is not an image file (it comes from a {1} source); save it as a GeoTIFF first.</source>
        <translation>La couche « {0} » n'est pas un fichier image (elle provient d'une source {1}) ; enregistrez-la d'abord en GeoTIFF.</translation>
    </message>
    <message>
        <location filename="../plugin/sheets.py" line="38"/>
        <source>Layer “{0}” does not read a file on disk; save it as a GeoTIFF first.</source>
        <translation>La couche « {0} » ne lit pas un fichier sur le disque ; enregistrez-la d'abord en GeoTIFF.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="241"/>
        <source>{0} intersections found, {1} px apart. Pick one on the map to anchor the grid.</source>
        <translation>{0} intersections trouvées, espacées de {1} px. Choisissez-en une sur la carte pour caler le carroyage.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="338"/>
        <source>{0} georeferenced: RMSE {1} {2} ({3} px) over {4} of {5} intersections. Files in {6}</source>
        <translation>{0} géoréférencée : erreur quadratique moyenne {1} {2} ({3} px) sur {4} intersections retenues parmi {5}. Fichiers dans {6}</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="427"/>
        <source>Intersection column {0}, row {1} at pixel ({2}; {3}): now type its easting and northing.</source>
        <translation>Intersection colonne {0}, ligne {1}, au pixel ({2} ; {3}) : saisissez maintenant ses coordonnées est et nord.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="136"/>
        <source>RMSE {0} map units ({1} px) over {2} of {3} intersections.</source>
        <translation>Erreur quadratique moyenne {0} unités de la carte ({1} px) sur {2} intersections retenues parmi {3}.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="30"/>
        <source>Vectorize building blocks</source>
        <translation>Vectoriser les îlots</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="32"/>
        <source>automatic: NNN-INPUT-MASK.png or NAME-MASK.png beside the sheet, else found on the sheet</source>
        <translation>automatique : NNN-INPUT-MASK.png ou NOM-MASK.png à côté de la planche, sinon trouvé sur la planche</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="66"/>
        <source>Building blocks</source>
        <translation>Îlots</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="46"/>
        <source>Blocks and every closed shape inside them</source>
        <translation>Îlots et toutes les formes fermées qu'ils contiennent</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="46"/>
        <source>Polygons</source>
        <translation>Polygones</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="39"/>
        <source>automatic: the sheet&apos;s own, or &lt;sheet&gt;_georef beside it; else pixels</source>
        <translation>automatique : celui de la planche, ou &lt;planche&gt;_georef à côté ; sinon en pixels</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="42"/>
        <source>Georeferencing (.points)</source>
        <translation>Géoréférencement (.points)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="61"/>
        <source>GeoPackage (*.gpkg)</source>
        <translation>GeoPackage (*.gpkg)</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="43"/>
        <source>automatic: &lt;sheet&gt;_blocks.gpkg beside the sheet</source>
        <translation>automatique : &lt;planche&gt;_blocks.gpkg à côté de la planche</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="45"/>
        <source>Output GeoPackage</source>
        <translation>GeoPackage de sortie</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="46"/>
        <source>Vectorize</source>
        <translation>Vectoriser</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="59"/>
        <source>Vectorizing the blocks of {0}</source>
        <translation>Vectorisation des îlots de {0}</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="90"/>
        <source>{0} blocks</source>
        <translation>{0} îlots</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="64"/>
        <source>{0} closed shapes</source>
        <translation>{0} formes fermées</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/blocks_dialog.py" line="69"/>
        <source>{0}: {1}, {2}. Saved in {3}</source>
        <translation>{0} : {1}, {2}. Enregistrés dans {3}</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="91"/>
        <source>{0} shapes</source>
        <translation>{0} formes</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="200"/>
        <source>QGIS cannot open {0}</source>
        <translation>QGIS ne peut pas ouvrir {0}</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="33"/>
        <source>Finds the building blocks of a scanned city map (the closed shapes bounded by streets, rivers and walls, as in ICDAR 2021 MapSeg task 1) and writes them as polygons to a GeoPackage, with their area and perimeter. With &quot;every closed shape&quot; the parcels, buildings and courtyards inside the blocks are added as a second layer.

The polygons are georeferenced with the .points file given, else with the sheet&apos;s own georeferencing, else with &lt;sheet&gt;_georef/&lt;sheet&gt;.points or &lt;sheet file&gt;.points beside the sheet; without any they are in pixel coordinates (x = column, y = -row), over the sheet opened without georeferencing.

The optional PNG is the MapSeg task 1 output: 255 on the blocks, one 4-connected component each.</source>
        <translation>Trouve les îlots d'un plan de ville numérisé (les formes fermées délimitées par les rues, les cours d'eau et les murs, comme dans la tâche 1 d'ICDAR 2021 MapSeg) et les écrit en polygones dans un GeoPackage, avec leur surface et leur périmètre. Avec « toutes les formes fermées », les parcelles, bâtiments et cours situés dans les îlots sont ajoutés dans une seconde couche.

Les polygones sont géoréférencés avec le fichier .points donné, sinon avec le géoréférencement propre de la planche, sinon avec &lt;planche&gt;_georef/&lt;planche&gt;.points ou &lt;fichier de la planche&gt;.points à côté de la planche ; à défaut, ils sont en coordonnées pixel (x = colonne, y = -ligne), sur la planche ouverte sans géoréférencement.

Le PNG facultatif est la sortie de la tâche 1 de MapSeg : 255 sur les îlots, une composante 4-connexe par îlot.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="49"/>
        <source>Georeferencing (.points file, optional)</source>
        <translation>Géoréférencement (fichier .points, facultatif)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="52"/>
        <source>Simplification tolerance (pixels)</source>
        <translation>Tolérance de simplification (pixels)</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="40"/>
        <source>GeoPackage</source>
        <translation>GeoPackage</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="63"/>
        <source>Blocks as a MapSeg PNG</source>
        <translation>Îlots en PNG MapSeg</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/map_area.py" line="35"/>
        <source>PNG masks (*.png)</source>
        <translation>Masques PNG (*.png)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="67"/>
        <source>Closed shapes</source>
        <translation>Formes fermées</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="68"/>
        <source>Number of blocks</source>
        <translation>Nombre d'îlots</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="69"/>
        <source>Number of shapes</source>
        <translation>Nombre de formes</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="85"/>
        <source>Polygons {0}.</source>
        <translation>Polygones {0}.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/map_area.py" line="24"/>
        <source>Segment the map area</source>
        <translation>Délimiter l'emprise de la carte</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/map_area.py" line="27"/>
        <source>Finds the map content inside the frame of a scanned sheet, without the margins, titles and legends, as in ICDAR 2021 MapSeg task 2.

The output is a single-channel PNG of the sheet&apos;s size: 255 on the map, 0 elsewhere. Name it NNN-INPUT-MASK.png beside NNN-INPUT.jpg (or NAME-MASK.png beside NAME.jpg) and the other algorithms use it by default.</source>
        <translation>Trouve le contenu cartographique à l'intérieur du cadre d'une planche numérisée, sans les marges, titres et légendes, comme dans la tâche 2 d'ICDAR 2021 MapSeg.

La sortie est un PNG à un canal de la taille de la planche : 255 sur la carte, 0 ailleurs. Nommez-le NNN-INPUT-MASK.png à côté de NNN-INPUT.jpg (ou NOM-MASK.png à côté de NOM.jpg) et les autres algorithmes l'utiliseront par défaut.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/map_area.py" line="37"/>
        <source>Share of the sheet covered by the map</source>
        <translation>Part de la planche couverte par la carte</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/map_area.py" line="51"/>
        <source>The map covers {0} % of the sheet.</source>
        <translation>La carte couvre {0} % de la planche.</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/task_dialog.py" line="97"/>
        <source>Images (*.jpg *.jpeg *.png *.tif *.tiff);;All files (*)</source>
        <translation>Images (*.jpg *.jpeg *.png *.tif *.tiff);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="79"/>
        <source>MapSeg CSV files (*.csv);;All files (*)</source>
        <translation>Fichiers CSV MapSeg (*.csv);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="79"/>
        <source>Images (*.png *.tif *.tiff);;All files (*)</source>
        <translation>Images (*.png *.tif *.tiff);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/mapseg_evaluation.py" line="115"/>
        <source>{0}: {1}</source>
        <translation>{0} : {1}</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="34"/>
        <source>(known points only)</source>
        <translation>(points connus seuls)</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="37"/>
        <source>Output</source>
        <translation>Sortie</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="37"/>
        <source>Outlier threshold</source>
        <translation>Seuil des points aberrants</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="38"/>
        <source>Resampling</source>
        <translation>Rééchantillonnage</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="39"/>
        <source>Simplification tolerance</source>
        <translation>Tolérance de simplification</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="39"/>
        <source>Level</source>
        <translation>Niveau</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="117"/>
        <source>{0}: choose a CRS.</source>
        <translation>{0} : choisissez un SCR.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/base.py" line="118"/>
        <source>{0}: “{1}” is not a CRS QGIS knows; give an authority code (EPSG:2154), a PROJ string or WKT.</source>
        <translation>{0} : « {1} » n'est pas un SCR connu de QGIS ; donnez un code d'autorité (EPSG:2154), une chaîne PROJ ou du WKT.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/detect_graticule.py" line="34"/>
        <source>Finds the grid lines printed on a scanned map sheet and their intersections, to a fraction of a pixel.

The points are placed on the sheet as QGIS shows it (pixel positions for an image without georeferencing), with their grid column and row, a confidence between 0 and 1 and whether both lines are drawn through the crossing (visible). The optional CSV has the ICDAR 2021 MapSeg format (x,y in pixels, y downwards) and lists the visible crossings, as MapSeg ground truth does.

Map-area mask: a PNG (255 = map) of the sheet&apos;s size; when left empty, NNN-INPUT-MASK.png beside NNN-INPUT.jpg (or NAME-MASK.png beside NAME.jpg) is used if present, else the map area is found automatically. Grid spacing: the distance between grid lines in pixels, if known (0 = find it).</source>
        <translation>Trouve les lignes du carroyage imprimées sur une planche numérisée et leurs intersections, à une fraction de pixel près.

Les points sont placés sur la planche telle que QGIS l'affiche (positions en pixels pour une image non géoréférencée), avec leur colonne et leur ligne dans le carroyage, une confiance entre 0 et 1 et l'indication que les deux lignes traversent bien le croisement (visible). Le CSV facultatif suit le format ICDAR 2021 MapSeg (x,y en pixels, y vers le bas) et donne les croisements visibles, comme la vérité terrain de MapSeg.

Masque de l'emprise : un PNG (255 = carte) de la taille de la planche ; s'il est laissé vide, NNN-INPUT-MASK.png à côté de NNN-INPUT.jpg (ou NOM-MASK.png à côté de NOM.jpg) est utilisé s'il existe, sinon l'emprise de la carte est trouvée automatiquement. Pas du carroyage : la distance entre les lignes en pixels, si on la connaît (0 = la trouver).</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/building_blocks.py" line="55"/>
        <source>Largest distance, in pixels, between a simplified polygon boundary and the pixel boundary it replaces (Douglas-Peucker on each boundary shared by two polygons, so that neighbours keep neither gaps nor overlaps); 0 keeps the exact pixel boundaries.</source>
        <translation>Distance maximale, en pixels, entre le contour simplifié d'un polygone et le contour en pixels qu'il remplace (Douglas-Peucker sur chaque limite commune à deux polygones, si bien que les voisins ne présentent ni trou ni chevauchement) ; 0 garde exactement les contours en pixels.</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="124"/>
        <source>Missing Python packages: {0}.</source>
        <translation>Paquets Python manquants : {0}.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="125"/>
        <source>Graticule Georeferencer needs Python packages that QGIS&apos;s Python lacks: {0}.</source>
        <translation>Graticule Georeferencer a besoin de paquets Python absents du Python de QGIS : {0}.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="128"/>
        <source>On Debian and Ubuntu, QGIS runs the system Python: install the distribution&apos;s packages (no pip; numpy stays as it is) in a terminal:</source>
        <translation>Sous Debian et Ubuntu, QGIS utilise le Python du système : installez les paquets de la distribution (sans pip ; numpy reste tel quel) dans un terminal :</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="131"/>
        <source>On Windows, open the OSGeo4W Shell (Start menu, QGIS folder) and run QGIS&apos;s Python with pip; numpy is pinned to the version QGIS runs, so pip never upgrades it:</source>
        <translation>Sous Windows, ouvrez l'OSGeo4W Shell (menu Démarrer, dossier QGIS) et lancez pip avec le Python de QGIS ; numpy est fixé à la version qu'utilise QGIS, pip ne le met donc jamais à jour :</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="135"/>
        <source>Run QGIS&apos;s own Python with pip in a terminal; numpy is pinned to the version QGIS runs, so pip never upgrades it:</source>
        <translation>Lancez pip avec le Python de QGIS dans un terminal ; numpy est fixé à la version qu'utilise QGIS, pip ne le met donc jamais à jour :</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="137"/>
        <source>Then restart QGIS.</source>
        <translation>Puis redémarrez QGIS.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="173"/>
        <source>Graticule Georeferencer: missing Python packages</source>
        <translation>Graticule Georeferencer : paquets Python manquants</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="182"/>
        <source>Copy</source>
        <translation>Copier</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="186"/>
        <source>Install dependencies</source>
        <translation>Installer les dépendances</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="187"/>
        <source>Run pip with QGIS&apos;s Python into the plugin&apos;s own folder (numpy pinned)</source>
        <translation>Lancer pip avec le Python de QGIS dans le dossier propre à l'extension (numpy fixé)</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="199"/>
        <source>Copied to the clipboard.</source>
        <translation>Copié dans le presse-papiers.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="214"/>
        <source>Installing…</source>
        <translation>Installation…</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="243"/>
        <source>Installed in {0}. If the plugin still reports a missing package, restart QGIS.</source>
        <translation>Installé dans {0}. Si l'extension signale encore un paquet manquant, redémarrez QGIS.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="246"/>
        <source>pip failed (exit code {0}); see its output above, or copy the instructions and run them yourself.</source>
        <translation>pip a échoué (code de sortie {0}) ; voyez sa sortie ci-dessus, ou copiez les instructions et lancez-les vous-même.</translation>
    </message>
    <message>
        <location filename="../plugin/deps.py" line="239"/>
        <source>QGIS&apos;s Python could not be started; copy the instructions and run them yourself.</source>
        <translation>Le Python de QGIS n'a pas pu être lancé ; copiez les instructions et lancez-les vous-même.</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="126"/>
        <source>How to install…</source>
        <translation>Comment installer…</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="128"/>
        <source>automatic</source>
        <translation>automatique</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="130"/>
        <source>Distance between two grid lines, in the units of the grid CRS (1000 m on the Paris atlas); automatic: the step of the grid values printed on the sheet, else 1000</source>
        <translation>Distance entre deux lignes du carroyage, dans l'unité du SCR du carroyage (1000 m sur l'atlas de Paris) ; automatique : le pas des valeurs du carroyage imprimées sur la planche, sinon 1000</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="348"/>
        <source>Leave the anchors empty to read the grid values printed on the sheet; or type the pixel position of an intersection and its grid coordinates, or detect the intersections and pick one on the map.</source>
        <translation>Laissez les repères vides pour lire les valeurs du carroyage imprimées sur la planche ; ou saisissez la position en pixels d'une intersection et ses coordonnées dans le carroyage, ou détectez les intersections et choisissez-en une sur la carte.</translation>
    </message>
    <message>
        <location filename="../plugin/layers.py" line="142"/>
        <source>{0} grid labels read</source>
        <translation>{0} valeurs du carroyage lues</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="145"/>
        <source>Label used</source>
        <translation>Valeur utilisée</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="145"/>
        <source>Label left out</source>
        <translation>Valeur écartée</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="57"/>
        <source>Detects the graticule of a scanned sheet, gives each intersection its grid coordinates and fits a transform to them, leaving out outliers.

Anchors say which intersection is which: X,Y=E,N means that the intersection nearest pixel (X, Y) (x to the right, y downwards) has grid coordinates (E, N). One anchor is enough for a sheet with north up; give two for a rotated sheet, separated by a semicolon. Instead of anchors, a QGIS .points file of known points can be given; NNN.points or &lt;sheet&gt;.points beside the sheet is used when present. With neither, the grid values printed in the sheet&apos;s margins are read and name the intersections (the report lists every label read).

The output folder receives &lt;sheet&gt;.tif (the georeferenced sheet), &lt;sheet&gt;.points (GCPs for QGIS&apos;s georeferencer), &lt;sheet&gt;.vrt, a world file and a report in JSON and HTML. The intersections layer gives every intersection with its residual in pixels and in map units.</source>
        <translation>Détecte le carroyage d'une planche numérisée, donne à chaque intersection ses coordonnées dans le carroyage et ajuste une transformation sur ces points, en écartant les points aberrants.

Les repères indiquent quelle intersection est laquelle : X,Y=E,N signifie que l'intersection la plus proche du pixel (X, Y) (x vers la droite, y vers le bas) a pour coordonnées (E, N) dans le carroyage. Un repère suffit pour une planche orientée au nord ; donnez-en deux, séparés par un point-virgule, pour une planche tournée. À la place des repères, on peut donner un fichier .points QGIS de points connus ; NNN.points ou &lt;planche&gt;.points à côté de la planche est utilisé s'il existe. Sans l'un ni l'autre, les valeurs du carroyage imprimées dans les marges de la planche sont lues et nomment les intersections (le rapport donne chaque valeur lue).

Le dossier de sortie reçoit &lt;planche&gt;.tif (la planche géoréférencée), &lt;planche&gt;.points (points de contrôle pour le géoréférenceur de QGIS), &lt;planche&gt;.vrt, un fichier de géoréférencement (world file) et un rapport en JSON et HTML. La couche des intersections donne chaque intersection avec son résidu en pixels et en unités de la carte.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/georeference.py" line="78"/>
        <source>Grid spacing (grid CRS units; 0 = the step of the printed grid values, else 1000)</source>
        <translation>Pas du carroyage (unités du SCR du carroyage ; 0 = le pas des valeurs imprimées, sinon 1000)</translation>
    </message>
    <message>
        <location filename="../plugin/tasks.py" line="60"/>
        <source>Unexpected error: {0}. The details are in the log (Log Messages panel, Graticule Georeferencer tab, or the algorithm&apos;s log).</source>
        <translation>Erreur inattendue : {0}. Les détails sont dans le journal (panneau Journal des messages, onglet Graticule Georeferencer, ou journal de l'algorithme).</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="286"/>
        <source>refused</source>
        <translation>refusée</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="43"/>
        <source>flagged: overlap or hole</source>
        <translation>signalée : chevauchement ou trou</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="44"/>
        <source>uncertain</source>
        <translation>incertaine</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="44"/>
        <source>placed</source>
        <translation>placée</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="89"/>
        <source>{0} holds no {1}: open the output folder of a directory run (python -m core.georef FOLDER …).</source>
        <translation>{0} ne contient pas de {1} : ouvrez le dossier de sortie d'un traitement de dossier (python -m core.georef DOSSIER …).</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="91"/>
        <source>{0} atlas</source>
        <translation>Atlas {0}</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="92"/>
        <source>{0} footprints</source>
        <translation>Emprises {0}</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="100"/>
        <source>{0} mosaic</source>
        <translation>Mosaïque {0}</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="123"/>
        <source>Atlas run</source>
        <translation>Traitement d'atlas</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="137"/>
        <source>Status</source>
        <translation>État</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="147"/>
        <source>Why</source>
        <translation>Pourquoi</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="139"/>
        <source>Double click a sheet to review its GCPs</source>
        <translation>Double-cliquez sur une planche pour vérifier ses points de contrôle</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="185"/>
        <source>{0}: {1} placed, {2} uncertain, {3} flagged, {4} refused. Double click a sheet to review it.</source>
        <translation>{0} : {1} placées, {2} incertaines, {3} signalées, {4} refusées. Double-cliquez sur une planche pour la vérifier.</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="206"/>
        <source>A sheet is being read; wait for it.</source>
        <translation>Une planche est en cours de lecture ; attendez la fin.</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="210"/>
        <source>No sheet of this run was placed: open {0} with the georeferencing dialog instead.</source>
        <translation>Aucune planche de ce traitement n'a été placée : ouvrez plutôt {0} avec la fenêtre de géoréférencement.</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="223"/>
        <source>{0} read: review it in the panel.</source>
        <translation>{0} lue : vérifiez-la dans le panneau.</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="226"/>
        <source>Reading {0} failed.</source>
        <translation>La lecture de {0} a échoué.</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="229"/>
        <source>Reading {0} again (detection and labels)…</source>
        <translation>Nouvelle lecture de {0} (détection et valeurs)…</translation>
    </message>
    <message>
        <location filename="../plugin/atlas.py" line="230"/>
        <source>Reading {0} for review</source>
        <translation>Lecture de {0} pour vérification</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="121"/>
        <source>The CRS of the coordinates printed on the sheet: any CRS of QGIS, the Paris atlas grid, or one typed as PROJ/WKT; a .points file&apos;s own CRS is taken when one is chosen</source>
        <translation>Le SCR des coordonnées imprimées sur la planche : tout SCR de QGIS, le carroyage de l'atlas de Paris, ou un SCR saisi en PROJ/WKT ; le SCR propre d'un fichier .points est repris quand on en choisit un</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="64"/>
        <source>Review GCPs</source>
        <translation>Vérifier les points</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="186"/>
        <source>Check, correct and refit the GCPs of the last result (or of a refused sheet) in the review panel</source>
        <translation>Contrôler, corriger et recaler les points de contrôle du dernier résultat (ou d'une planche refusée) dans le panneau de vérification</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="287"/>
        <source>{0} labels read:</source>
        <translation>{0} valeurs lues :</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="292"/>
        <source>Review…</source>
        <translation>Vérifier…</translation>
    </message>
    <message>
        <location filename="../plugin/dialogs/georeference_dialog.py" line="331"/>
        <source>Grid CRS taken from {0}: {1}.</source>
        <translation>SCR du carroyage repris de {0} : {1}.</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="68"/>
        <source>Review GCPs…</source>
        <translation>Vérifier les points de contrôle…</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="68"/>
        <source>Check, correct and refit the GCPs of a georeferenced sheet, a refused one or any sheet with a .points file</source>
        <translation>Contrôler, corriger et recaler les points de contrôle d'une planche géoréférencée, refusée ou accompagnée d'un fichier .points</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="72"/>
        <source>Open atlas run…</source>
        <translation>Ouvrir un traitement d'atlas…</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="72"/>
        <source>Show the sheets of a directory run as footprints over their mosaic, with the refused and uncertain ones listed</source>
        <translation>Afficher les planches d'un traitement de dossier en emprises sur leur mosaïque, avec la liste des planches refusées et incertaines</translation>
    </message>
    <message>
        <location filename="../plugin/main.py" line="212"/>
        <source>Output folder of a directory run (footprints.gpkg)</source>
        <translation>Dossier de sortie d'un traitement de dossier (footprints.gpkg)</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/refit_gcps.py" line="23"/>
        <source>Refit GCPs</source>
        <translation>Recaler les points de contrôle</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/refit_gcps.py" line="26"/>
        <source>Fits a transform to the enabled points of a QGIS .points file as they are (no detection, no snapping) and writes the georeferenced sheet, its .points file, VRT, world file and reports: what the review panel&apos;s Save writes, and python -m core.georef SHEET --gcps FILE --gcps-only --outliers none. Disabled points stay in the outputs, disabled. By default every enabled point is used (no outlier rejection), as in QGIS&apos;s georeferencer.

Grid CRS: the CRS the point coordinates are read in (default: the file&apos;s #CRS line); the report gives them in it.</source>
        <translation>Ajuste une transformation sur les points activés d'un fichier .points QGIS tels quels (sans détection ni aimantation) et écrit la planche géoréférencée, son fichier .points, le VRT, le fichier de géoréférencement (world file) et les rapports : ce qu'écrit le bouton Enregistrer du panneau de vérification, et python -m core.georef PLANCHE --gcps FICHIER --gcps-only --outliers none. Les points désactivés restent dans les sorties, désactivés. Par défaut tous les points activés sont retenus (aucun rejet des points aberrants), comme dans le géoréférenceur de QGIS.

SCR du carroyage : le SCR dans lequel les coordonnées des points sont lues (par défaut : la ligne #CRS du fichier) ; le rapport les donne dans ce SCR.</translation>
    </message>
    <message>
        <location filename="../plugin/processing_provider/refit_gcps.py" line="38"/>
        <source>GCPs (.points file)</source>
        <translation>Points de contrôle (fichier .points)</translation>
    </message>
    <message>
        <location filename="../plugin/project.py" line="46"/>
        <source>The result is in {0}; the project is in {1}.</source>
        <translation>Le résultat est en {0} ; le projet est en {1}.</translation>
    </message>
    <message>
        <location filename="../plugin/project.py" line="49"/>
        <source>Use {0} for the project</source>
        <translation>Passer le projet en {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="102"/>
        <source>GCPs</source>
        <translation>Points de contrôle</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="105"/>
        <source>Residuals</source>
        <translation>Résidus</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="107"/>
        <source>Detected crossings</source>
        <translation>Croisements détectés</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="108"/>
        <source>Grid labels read</source>
        <translation>Valeurs du carroyage lues</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="121"/>
        <source>Left out</source>
        <translation>Écarté</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="121"/>
        <source>No grid values yet</source>
        <translation>Sans coordonnées pour le moment</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="138"/>
        <source>Residual (exaggerated)</source>
        <translation>Résidu (exagéré)</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="138"/>
        <source>Residual of a point left out</source>
        <translation>Résidu d'un point écarté</translation>
    </message>
    <message>
        <location filename="../plugin/review/canvas.py" line="200"/>
        <source>arrows × {0}</source>
        <translation>flèches × {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="81"/>
        <source>Open</source>
        <translation>Ouvrir</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="83"/>
        <source>Runs, sheets and GCP files (*.report.json *.points *.jpg *.jpeg *.png *.tif *.tiff);;All files (*)</source>
        <translation>Traitements, planches et fichiers de points (*.report.json *.points *.jpg *.jpeg *.png *.tif *.tiff);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="85"/>
        <source>a run&apos;s report, a sheet or a .points file</source>
        <translation>le rapport d'un traitement, une planche ou un fichier .points</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="89"/>
        <source>Run folder…</source>
        <translation>Dossier du traitement…</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="90"/>
        <source>Open the output folder of a georeferenced sheet</source>
        <translation>Ouvrir le dossier de sortie d'une planche géoréférencée</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="122"/>
        <source>Snap to crossings</source>
        <translation>Aimanter aux croisements</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="124"/>
        <source>A moved or added point goes onto the nearest detected crossing within a quarter of a grid cell</source>
        <translation>Un point déplacé ou ajouté va sur le croisement détecté le plus proche, à moins d'un quart de maille</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="127"/>
        <source>Add point</source>
        <translation>Ajouter un point</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="129"/>
        <source>Click the sheet to add a point, then type its grid values in the table</source>
        <translation>Cliquez sur la planche pour ajouter un point, puis saisissez ses coordonnées dans le tableau</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="133"/>
        <source>Remove</source>
        <translation>Supprimer</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="134"/>
        <source>Remove the selected point (Delete)</source>
        <translation>Supprimer le point sélectionné (Suppr)</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="142"/>
        <source>What was read on the sheet</source>
        <translation>Ce qui a été lu sur la planche</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="147"/>
        <source>Text</source>
        <translation>Texte</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="147"/>
        <source>Value</source>
        <translation>Valeur</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="147"/>
        <source>Family</source>
        <translation>Famille</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="147"/>
        <source>Line</source>
        <translation>Ligne</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Used</source>
        <translation>Retenu</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="156"/>
        <source>Undo</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="157"/>
        <source>Redo</source>
        <translation>Rétablir</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="158"/>
        <source>Undo the last change (Ctrl+Z)</source>
        <translation>Annuler la dernière modification (Ctrl+Z)</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="159"/>
        <source>Redo (Ctrl+Shift+Z)</source>
        <translation>Rétablir (Ctrl+Maj+Z)</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="162"/>
        <source>Whole sheet</source>
        <translation>Toute la planche</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="164"/>
        <source>Save</source>
        <translation>Enregistrer</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="165"/>
        <source>Write the .points file, the GeoTIFF and the reports into the run&apos;s folder, and reload them</source>
        <translation>Écrire le fichier .points, le GeoTIFF et les rapports dans le dossier du traitement, puis les recharger</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="208"/>
        <source>Output folder of a georeferenced sheet</source>
        <translation>Dossier de sortie d'une planche géoréférencée</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="286"/>
        <source>{0} points</source>
        <translation>{0} points</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="288"/>
        <source>{0} ({1}): grid {2} → {3}</source>
        <translation>{0} ({1}) : carroyage {2} → {3}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="296"/>
        <source>yes</source>
        <translation>oui</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="296"/>
        <source>no</source>
        <translation>non</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="305"/>
        <source>Certainty of the labelling: {0}</source>
        <translation>Certitude de la lecture des valeurs : {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="307"/>
        <source>Candidate: {0}</source>
        <translation>Candidat : {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="309"/>
        <source>Refused: {0}</source>
        <translation>Refusée : {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="348"/>
        <source>No fit: {0}</source>
        <translation>Pas de calage : {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="351"/>
        <source>RMSE {0} {1} ({2} px) over {3} of {4} points, {5}; {6}</source>
        <translation>EQM {0} {1} ({2} px) sur {3} points retenus parmi {4}, {5} ; {6}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="459"/>
        <source>Saving failed.</source>
        <translation>L'enregistrement a échoué.</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="462"/>
        <source>Saving the review of {0}</source>
        <translation>Enregistrement de la vérification de {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="480"/>
        <source>Saved in {0}: RMSE {1} ({2} px) over {3} of {4} points.</source>
        <translation>Enregistré dans {0} : EQM {1} ({2} px) sur {3} points retenus parmi {4}.</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="92"/>
        <source>Use point {0}</source>
        <translation>Retenir le point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="92"/>
        <source>Leave point {0} out</source>
        <translation>Écarter le point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="98"/>
        <source>Point {0} has no grid coordinates yet: type its easting and northing first.</source>
        <translation>Le point {0} n'a pas encore de coordonnées : saisissez d'abord son est et son nord.</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="118"/>
        <source>Grid values of point {0}</source>
        <translation>Coordonnées du point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="124"/>
        <source>Move point {0}</source>
        <translation>Déplacer le point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="129"/>
        <source>Add point {0}</source>
        <translation>Ajouter le point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="135"/>
        <source>Remove point {0}</source>
        <translation>Supprimer le point {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/session.py" line="139"/>
        <source>Transform: {0}</source>
        <translation>Transformation : {0}</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Id</source>
        <translation>N°</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Column</source>
        <translation>Colonne</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="30"/>
        <source>Row</source>
        <translation>Rangée</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="31"/>
        <source>Residual (px)</source>
        <translation>Résidu (px)</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="31"/>
        <source>Residual (map)</source>
        <translation>Résidu (carte)</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="93"/>
        <source>Used in the fit (Space toggles the selected point)</source>
        <translation>Retenu pour le calage (Espace bascule le point sélectionné)</translation>
    </message>
    <message>
        <location filename="../plugin/review/table.py" line="122"/>
        <source>“{0}” is not a number.</source>
        <translation>« {0} » n'est pas un nombre.</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="58"/>
        <source>Details…</source>
        <translation>Détails…</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="59"/>
        <source>Show the whole message</source>
        <translation>Afficher tout le message</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="134"/>
        <source>Paris atlas</source>
        <translation>Atlas de Paris</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="135"/>
        <source>The grid of the Atlas municipal de Paris (Paris Observatory)</source>
        <translation>Le carroyage de l'Atlas municipal de Paris (Observatoire de Paris)</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="141"/>
        <source>PROJ/WKT…</source>
        <translation>PROJ/WKT…</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="142"/>
        <source>Type or paste the CRS as a PROJ string, WKT or code (EPSG:27561)</source>
        <translation>Saisir ou coller le SCR en chaîne PROJ, en WKT ou en code (EPSG:27561)</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="172"/>
        <source>CRS as text</source>
        <translation>SCR en texte</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="172"/>
        <source>PROJ string, WKT or authority code:</source>
        <translation>Chaîne PROJ, WKT ou code d'autorité :</translation>
    </message>
    <message>
        <location filename="../plugin/widgets.py" line="176"/>
        <source>“{0}” is not a CRS QGIS knows; give a PROJ string (+proj=…), WKT or an authority code (EPSG:2154).</source>
        <translation>« {0} » n'est pas un SCR connu de QGIS ; donnez une chaîne PROJ (+proj=…), du WKT ou un code d'autorité (EPSG:2154).</translation>
    </message>
    <message>
        <location filename="../plugin/review/panel.py" line="355"/>
        <source>warnings: {0}</source>
        <translation>avertissements : {0}</translation>
    </message>
</context>
</TS>
